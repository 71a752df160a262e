/** What GitHub answered, in domain terms: the data the ports carry (README: "Development"). */
export interface PullInfo {
  number: number
  url: string
  headSha: string
  headRef: string
  /** The branch the PR merges into. */
  baseRef: string
  draft: boolean
  state: string
}

export interface RepoRef {
  owner: string
  repo: string
}

/** A workflow run as `reconcile` needs it: is it still running, and which attempt is latest. */
export type WorkflowRunState =
  | { kind: 'found'; status: string; conclusion: string | null; runAttempt: number | null }
  | { kind: 'not-found' }
  /** The token may not read Actions runs (HTTP 403): the caller cannot tell. */
  | { kind: 'forbidden' }

export interface CommitInfo {
  sha: string
  tree: string
  parents: string[]
  /** The committer's time (epoch ms), when GitHub gave one. */
  committedAt?: number
}

export interface WorkflowRunInfo {
  id: number
  name: string
  event: string
  status: string
  conclusion: string | null
  url: string
}

export interface WorkflowJobInfo {
  name: string
  status: string
  conclusion: string | null
  url: string
  steps: { name: string; status: string; conclusion: string | null }[]
}

export interface DispatchRequest {
  /** The workflow file name (`autoloop.lock.yml`) or id. */
  workflow: string
  ref: string
  inputs: Record<string, string>
}
