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

/** What a gate asks of where its branch stands, read at once at its start. */
export interface StandingQuery {
  branch: string
  /** The commit to gate when it is not the branch head (`sha`). */
  sha?: string
  /** A base branch other than the PR's or the default one (`base`). */
  base?: string
}

/** Where the program's branch stands: its head commit, its open PR, the default branch, the bases' heads. */
export interface BranchStanding {
  /** The branch's head SHA; null when there is no such branch. */
  head: string | null
  /** The commit to gate (`sha`, else the head) with the tree of its only parent, when it has one. */
  commit: (CommitInfo & { parentTree: string | null }) | null
  /** The branch's newest open PR. */
  openPull: PullInfo | null
  defaultBranch: string
  /** Head SHA of each branch read as a base (the default branch, the PR's base, `base`); null: none. */
  heads: Record<string, string | null>
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
