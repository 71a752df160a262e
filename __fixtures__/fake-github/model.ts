/**
 * The fake's repository model: state seeded from a scenario, the clock (virtual or real),
 * branches kept in step with the git repository, stable ids, and the views of check runs,
 * workflow runs and statuses at the current time. Dispatches and re-runs change it here.
 * No HTTP here.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryRepo } from './contents-memory.js'
import type { ContentStore, GitCommit, Identity } from './contents-store.js'
import { GitRepo } from './git.js'
import { statusEventsAt, timelineAt } from './timeline.js'
import type {
  CheckConclusion,
  CheckRunEvent,
  CheckRunPlan,
  CheckRunView,
  DispatchedRunPlan,
  DispatchRecord,
  FakeState,
  PlanTarget,
  RateLimitCounters,
  RerunOutcome,
  Scenario,
  StatusPlan,
  StatusState,
  WorkflowRunPlan
} from './types.js'

export const ACTIONS_APP = 'github-actions'
const HOUR = 3_600_000
const RERUNNABLE: ReadonlyArray<string> = ['failure', 'cancelled', 'timed_out', 'startup_failure']

export interface StatusView {
  id: number
  sha: string
  context: string
  state: StatusState
  description: string | null
  targetUrl: string | null
  createdAt: number
}

/** A commit as the commit endpoints show it, from git or from the scenario. */
export type CommitInfo = GitCommit

export interface Workflow {
  /** Display name: the plan's `workflow` as written. */
  name: string
  /** `.github/workflows/<file>` */
  path: string
  id: number
}

/** A workflow run as the API would show it now. */
export interface WorkflowRunView {
  id: number
  workflow: Workflow
  event: string
  sha: string
  headBranch: string | null
  status: string
  conclusion: string | null
  /** The latest attempt (1 without re-runs). */
  attempt: number
  createdAt: number
  updatedAt: number
  /** When the latest attempt started. */
  attemptStartedAt: number
  checkSuiteId: number
  /** Every attempt of every job. */
  jobs: CheckRunView[]
}

export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex')
}

function startTimeOf(scenario: Scenario): number {
  if (typeof scenario.startTime === 'number') return scenario.startTime
  if (typeof scenario.startTime === 'string') {
    const parsed = Date.parse(scenario.startTime)
    if (Number.isNaN(parsed)) {
      throw new Error(
        `scenario.startTime "${scenario.startTime}" is not a date; use an ISO string or ms epoch`
      )
    }
    return parsed
  }
  return Math.floor(Date.now() / 1000) * 1000
}

/** The latest attempt of each job name. */
export function latestJobs(jobs: CheckRunView[]): CheckRunView[] {
  const byName = new Map<string, CheckRunView>()
  for (const job of jobs) {
    const seen = byName.get(job.name)
    if (
      !seen ||
      job.runAttempt > seen.runAttempt ||
      (job.runAttempt === seen.runAttempt && job.id > seen.id)
    ) {
      byName.set(job.name, job)
    }
  }
  return [...byName.values()]
}

/** A run's status from its jobs: running while any runs, else the worst conclusion. */
function statusOfJobs(jobs: CheckRunView[]): { status: string; conclusion: string | null } {
  if (jobs.some((j) => j.status === 'in_progress'))
    return { status: 'in_progress', conclusion: null }
  if (jobs.some((j) => j.status === 'queued')) return { status: 'queued', conclusion: null }
  const conclusions = jobs.map((j) => j.conclusion)
  for (const bad of [
    'failure',
    'timed_out',
    'startup_failure',
    'cancelled',
    'action_required'
  ] as const) {
    if (conclusions.includes(bad)) return { status: 'completed', conclusion: bad }
  }
  return { status: 'completed', conclusion: 'success' }
}

/** Moves a timeline so that its first event is at 0. */
function fromZero(timeline: CheckRunEvent[]): CheckRunEvent[] {
  const first = Math.min(...timeline.map((e) => e.at))
  return timeline.map((e) => ({ ...e, at: e.at - first }))
}

export class Model {
  readonly state: FakeState
  readonly rateLimit: RateLimitCounters
  /** Called for each accepted dispatch; a returned plan replaces the scenario's. */
  onDispatch: ((dispatch: DispatchRecord) => DispatchedRunPlan | undefined | void) | undefined
  private clock: number
  private started = false
  private git: ContentStore | undefined
  private gitOnDisk: GitRepo | undefined
  private tempRoot: string | undefined
  private readonly scenarioGitDir: string | undefined
  private readonly lastGitHeads: Record<string, string> = {}
  /** SHAs known not to be git commits since the refs last changed. */
  private readonly notInGit = new Set<string>()
  private readonly workflowFiles: string[] | undefined
  private readonly dispatchedRuns: DispatchedRunPlan
  private readonly workflows = new Map<string, Workflow>()
  /**
   * Plans the fake made (re-runs, dispatched runs): they target one SHA and add to the
   * scenario's plans for it rather than taking their place.
   */
  private readonly madeByFake = new WeakSet<PlanTarget>()
  /** Re-run plan → the scenario plan it re-runs (whose `rerun` entries it follows). */
  private readonly rerunRoots = new WeakMap<CheckRunPlan, CheckRunPlan>()
  private readonly rerunCounts = new Map<string, number>()
  private memoryPushes = 0
  private readonly planUids = new WeakMap<object, number>()
  private readonly ids = new Map<string, number>()
  private readonly counters = {
    plan: 0,
    checkRun: 40_000_000_000,
    run: 19_000_000_000,
    suite: 37_000_000_000,
    status: 30_000_000_000,
    comment: 3_000_000_000,
    workflow: 1_000_000,
    number: 0
  }

  constructor(
    scenario: Scenario,
    readonly urls: { serverUrl: string; apiUrl: string },
    readonly realTime = false
  ) {
    if (realTime && scenario.startTime !== undefined) {
      throw new Error('scenario.startTime cannot be set with realTime: the clock is the system one')
    }
    this.clock = realTime ? Date.now() : startTimeOf(scenario)
    this.scenarioGitDir = scenario.gitDir
    this.workflowFiles = scenario.workflows
    this.dispatchedRuns = scenario.dispatchedRuns ?? {}
    const defaultBranch = scenario.defaultBranch ?? 'main'
    const actor = scenario.actor ?? 'github-actions[bot]'
    this.state = {
      owner: scenario.owner ?? 'octo-org',
      repo: scenario.repo ?? 'demo',
      defaultBranch,
      actor,
      collaborators: { ...scenario.collaborators },
      branches: { ...scenario.branches },
      heads: {},
      shaSeenAt: {},
      commits: {},
      checkRuns: structuredClone(scenario.checkRuns ?? []),
      workflowRuns: structuredClone(scenario.workflowRuns ?? []),
      dispatches: [],
      statuses: structuredClone(scenario.statuses ?? []),
      createdStatuses: [],
      pulls: [],
      issues: [],
      comments: [],
      labels: [...(scenario.labels ?? [])],
      faults: structuredClone(scenario.faults ?? [])
    }
    this.rateLimit = {
      requestsSent: 0,
      pointsSpent: 0,
      notModified: 0,
      limit: scenario.rateLimit?.limit ?? 5000,
      used: scenario.rateLimit?.used ?? 0,
      resetAt: this.now() + HOUR
    }
    for (const file of scenario.workflows ?? []) this.workflowNamed(file)
    this.seedCommits(scenario)
    this.seedIssues(scenario)
    this.syncHeads()
    this.started = true
  }

  private seedCommits(scenario: Scenario): void {
    const { state } = this
    for (const [sha, seed] of Object.entries(scenario.commits ?? {})) {
      state.commits[sha] = {
        sha,
        tree: seed.tree,
        parents: [...seed.parents],
        message: seed.message ?? ''
      }
    }
    const both = Object.keys(scenario.contents ?? {}).filter((b) => scenario.branches?.[b])
    if (both.length > 0) {
      throw new Error(
        `scenario.contents and scenario.branches both set ${both.join(', ')}; contents makes the commit`
      )
    }
    if (scenario.gitDir) this.repo()
    for (const [branch, files] of Object.entries(scenario.contents ?? {})) {
      const git = this.repo()
      git.writeCommit({
        branch,
        parent: git.heads()[branch] ?? null,
        files,
        message: `seed ${branch}`,
        author: this.identity()
      })
    }
    for (const sha of Object.values(state.branches)) this.rememberMadeUp(sha)
    const inGit = this.git?.heads() ?? {}
    if (!state.branches[state.defaultBranch] && !inGit[state.defaultBranch]) {
      const sha = fakeSha(`seed:${state.owner}/${state.repo}:${state.defaultBranch}`)
      state.branches[state.defaultBranch] = sha
      state.commits[sha] = { sha, tree: fakeSha(`tree:${sha}`), parents: [], message: '' }
    }
  }

  private seedIssues(scenario: Scenario): void {
    const { state } = this
    const taken = [...(scenario.pulls ?? []), ...(scenario.issues ?? [])]
      .map((x) => x.number ?? 0)
      .reduce((a, b) => Math.max(a, b), 0)
    this.counters.number = taken
    for (const seed of scenario.issues ?? []) {
      const number = seed.number ?? ++this.counters.number
      state.issues.push({
        number,
        title: seed.title ?? `Issue ${number}`,
        body: seed.body ?? null,
        state: seed.state ?? 'open',
        labels: [...(seed.labels ?? [])],
        createdAt: this.now(),
        updatedAt: this.now()
      })
      for (const label of seed.labels ?? []) this.ensureLabel(label)
      for (const c of seed.comments ?? []) {
        const comment = typeof c === 'string' ? { body: c } : c
        this.addComment(number, comment.body, comment.user)
      }
    }
    for (const seed of scenario.pulls ?? []) {
      this.addPull({
        number: seed.number,
        head: seed.head,
        base: seed.base ?? state.defaultBranch,
        title: seed.title ?? `Pull ${seed.head}`,
        body: seed.body ?? null,
        draft: seed.draft ?? false,
        state: seed.state ?? 'open'
      })
    }
  }

  // --- time ---------------------------------------------------------------------------------

  now(): number {
    return this.realTime ? Date.now() : this.clock
  }

  private virtualOnly(what: string): void {
    if (this.realTime) {
      throw new Error(`${what} is not available with realTime: the fake uses the system clock`)
    }
  }

  setNow(ms: number): void {
    this.virtualOnly('setNow')
    this.clock = ms
  }

  advance(ms: number): number {
    this.virtualOnly('advance')
    this.clock += Math.max(0, ms)
    return this.clock
  }

  /** Starts a new rate-limit window when the current one has passed. */
  rollRateLimitWindow(): void {
    const now = this.now()
    if (now >= this.rateLimit.resetAt) {
      this.rateLimit.used = 0
      this.rateLimit.resetAt = now + HOUR
    }
  }

  // --- git ----------------------------------------------------------------------------------

  /**
   * The contents store, created on first use: in memory, unless the scenario gives a
   * `gitDir` or something already asked for the repository on disk (`gitDir()`).
   */
  repo(): ContentStore {
    if (this.scenarioGitDir) this.gitDir()
    this.git ??= new MemoryRepo()
    return this.git
  }

  /**
   * The bare repository on disk, for git itself (fetch and clone over HTTP, a push to
   * `gitDir`): created on first call with everything the memory store held, which it then
   * replaces (same objects, same SHAs).
   */
  gitDir(): string {
    if (!this.gitOnDisk) {
      if (!this.scenarioGitDir) this.tempRoot = mkdtempSync(join(tmpdir(), 'fake-github-'))
      const dir = this.scenarioGitDir ?? join(this.tempRoot ?? '', 'repo.git')
      const disk = new GitRepo(dir, this.state.defaultBranch)
      if (this.git instanceof MemoryRepo) this.git.writeTo(dir)
      this.gitOnDisk = disk
      this.git = disk
    }
    return this.gitOnDisk.dir
  }

  /** Whether the git repository exists yet (reads need not create it). */
  hasGit(): boolean {
    return this.git !== undefined
  }

  /** Removes the temporary repository (never `scenario.gitDir`). */
  dispose(): void {
    if (this.tempRoot) rmSync(this.tempRoot, { recursive: true, force: true })
  }

  /** The git commit, or undefined (without asking git again until the refs change). */
  gitCommit(sha: string): GitCommit | undefined {
    if (!this.git || this.state.commits[sha] || this.notInGit.has(sha)) return undefined
    const commit = this.git.commit(sha)
    if (!commit) this.notInGit.add(sha)
    return commit
  }

  private identity(): Identity {
    const { actor } = this.state
    const email = actor.endsWith('[bot]')
      ? `41898282+${actor}@users.noreply.github.com`
      : `${actor}@users.noreply.github.com`
    return { name: actor, email, date: this.now() }
  }

  private rememberMadeUp(sha: string): void {
    if (this.state.commits[sha] || this.gitCommit(sha)) return
    this.state.commits[sha] = { sha, tree: fakeSha(`tree:${sha}`), parents: [], message: '' }
  }

  /**
   * Commits files over the branch head in git and moves the branch. A new branch, or one at
   * a made-up SHA (an empty tree as far as files go), gets a root commit: its git history
   * starts there. Throws RefMovedError when the branch moved in git meanwhile.
   */
  commitFiles(branch: string, files: Record<string, string | Buffer>, message: string): string {
    const git = this.repo()
    this.syncHeads()
    const head = this.state.branches[branch]
    const parent = head !== undefined && this.gitCommit(head) ? head : null
    const sha = git.writeCommit({ branch, parent, files, message, author: this.identity() })
    this.lastGitHeads[branch] = sha
    this.state.branches[branch] = sha
    this.syncHeads()
    return sha
  }

  /**
   * GraphQL `createCommitOnBranch`: a commit on the branch head, only when that is
   * `expectedHeadOid`, authored by the token's user and committed by GitHub (what GitHub
   * signs). Returns the new SHA, or GitHub's error when the head is another commit.
   */
  createCommitOnBranch(change: {
    branch: string
    expectedHeadOid: string
    additions: Record<string, Buffer>
    deletions: string[]
    message: string
  }): { oid: string } | { error: string; type: string } {
    this.syncHeads()
    const head = this.state.branches[change.branch]
    if (head === undefined || !this.gitCommit(head))
      return {
        type: 'NOT_FOUND',
        error: `A ref named "refs/heads/${change.branch}" does not exist`
      }
    if (head !== change.expectedHeadOid)
      return {
        type: 'STALE_DATA',
        error: `Expected branch to point to "${change.expectedHeadOid}" but it did not. Pull and try again.`
      }
    const committer = { name: 'GitHub', email: 'noreply@github.com', date: this.now() }
    const sha = this.repo().writeCommit({
      branch: change.branch,
      parent: head,
      files: change.additions,
      deletions: change.deletions,
      message: change.message,
      author: this.identity(),
      committer
    })
    this.lastGitHeads[change.branch] = sha
    this.state.branches[change.branch] = sha
    this.syncHeads()
    return { oid: sha }
  }

  memoryPush(branch: string, files: Record<string, string>, message?: string): string {
    return this.commitFiles(
      branch,
      files,
      message ?? `Update repo memory from workflow run ${++this.memoryPushes}`
    )
  }

  // --- branches and heads -------------------------------------------------------------------

  /**
   * Merges git's branch refs (a ref that changed in git since the last look wins; a ref
   * deleted in git deletes the branch) and records new branch heads.
   */
  syncHeads(): void {
    const { state } = this
    if (this.git) {
      const heads = this.git.heads()
      let changed = false
      for (const [name, sha] of Object.entries(heads)) {
        if (this.lastGitHeads[name] === sha) continue
        changed = true
        this.lastGitHeads[name] = sha
        state.branches[name] = sha
      }
      for (const [name, sha] of Object.entries(this.lastGitHeads)) {
        if (heads[name] !== undefined) continue
        changed = true
        delete this.lastGitHeads[name]
        if (state.branches[name] === sha) delete state.branches[name]
      }
      if (changed) this.notInGit.clear()
    }
    for (const [name, sha] of Object.entries(state.branches)) {
      const history = state.heads[name]
      if (!history) {
        state.heads[name] = this.started
          ? { initial: null, pushed: [sha] }
          : { initial: sha, pushed: [] }
        if (this.started) this.markSeen(sha)
      } else if (history.initial !== sha && !history.pushed.includes(sha)) {
        history.pushed.push(sha)
        this.markSeen(sha)
      }
    }
  }

  /** Points a branch at a SHA (a push); git follows when the SHA is a git commit. */
  setBranch(name: string, sha: string): void {
    this.syncHeads()
    this.state.branches[name] = sha
    if (this.gitCommit(sha)) {
      this.repo().setBranch(name, sha)
      this.lastGitHeads[name] = sha
    } else {
      this.rememberMadeUp(sha)
      if (this.lastGitHeads[name] !== undefined) {
        this.repo().deleteBranch(name)
        delete this.lastGitHeads[name]
      }
    }
    this.syncHeads()
  }

  deleteBranch(name: string): void {
    delete this.state.branches[name]
    if (this.lastGitHeads[name] !== undefined) {
      this.repo().deleteBranch(name)
      delete this.lastGitHeads[name]
    }
  }

  headsOf(branch: string): string[] {
    const history = this.state.heads[branch]
    if (!history) return []
    return history.initial ? [history.initial, ...history.pushed] : [...history.pushed]
  }

  markSeen(sha: string): void {
    this.state.shaSeenAt[sha] ??= this.now()
  }

  /**
   * Resolves a branch name, `heads/x`, `refs/heads/x`, a full SHA or a unique SHA prefix, and
   * marks the SHA seen unless `mark` is false.
   */
  resolveRef(ref: string, mark = true): string | undefined {
    const branch = ref.replace(/^refs\/heads\/|^heads\//, '')
    const fromBranch = this.state.branches[branch]
    let sha: string | undefined
    if (fromBranch) sha = fromBranch
    else if (/^[0-9a-f]{40}$/.test(ref)) sha = ref
    else if (/^[0-9a-f]{7,39}$/.test(ref)) {
      const known = new Set([
        ...Object.keys(this.state.commits),
        ...Object.keys(this.state.shaSeenAt),
        ...this.state.checkRuns.flatMap((p) => (p.sha ? [p.sha] : []))
      ])
      const matches = [...known].filter((k) => k.startsWith(ref))
      if (matches.length === 1) sha = matches[0]
    }
    if (sha && mark) this.markSeen(sha)
    return sha
  }

  /** A commit's tree, parents and message: declared or made up in the scenario, or from git. */
  commitInfo(sha: string): CommitInfo | undefined {
    const declared = this.state.commits[sha]
    if (declared) {
      const who = { ...this.identity(), date: this.state.shaSeenAt[sha] ?? this.now() }
      return {
        sha,
        tree: declared.tree,
        parents: declared.parents,
        message: declared.message,
        author: who,
        committer: who
      }
    }
    return this.gitCommit(sha)
  }

  // --- ids ----------------------------------------------------------------------------------

  private uid(plan: object): number {
    let uid = this.planUids.get(plan)
    if (uid === undefined) {
      uid = ++this.counters.plan
      this.planUids.set(plan, uid)
    }
    return uid
  }

  private id(
    key: string,
    counter: 'checkRun' | 'run' | 'suite' | 'status' | 'comment' | 'workflow'
  ): number {
    let id = this.ids.get(key)
    if (id === undefined) {
      id = ++this.counters[counter]
      this.ids.set(key, id)
    }
    return id
  }

  nextNumber(): number {
    return ++this.counters.number
  }

  /** The workflow with this name or file (registered on first use). */
  workflowNamed(name: string): Workflow {
    const path = name.includes('/')
      ? name
      : /\.ya?ml$/.test(name)
        ? `.github/workflows/${name}`
        : `.github/workflows/${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.yml`
    let workflow = this.workflows.get(path)
    if (!workflow) {
      workflow = { name, path, id: this.id(`workflow:${path}`, 'workflow') }
      this.workflows.set(path, workflow)
    }
    return workflow
  }

  /**
   * A workflow by numeric id or file name, as `{workflow_id}` names it; undefined when
   * unknown (any file name is known unless the scenario lists `workflows`).
   */
  findWorkflow(idOrFile: string): Workflow | undefined {
    if (/^\d+$/.test(idOrFile)) {
      const byId = () => [...this.workflows.values()].find((w) => w.id === Number(idOrFile))
      if (byId()) return byId()
      this.workflowRuns() // registers the workflows of every run there is
      return byId()
    }
    const known = [...this.workflows.values()].find(
      (w) => w.path.split('/').pop() === idOrFile || w.name === idOrFile
    )
    if (known) return known
    if (this.workflowFiles && !this.workflowFiles.includes(idOrFile)) return undefined
    return this.workflowNamed(idOrFile)
  }

  // --- plans --------------------------------------------------------------------------------

  private headAt(branch: string, head: number): string | undefined {
    const history = this.state.heads[branch]
    if (!history) return undefined
    return head === 0 ? (history.initial ?? undefined) : history.pushed[head - 1]
  }

  /** Plans for `sha`: those naming it (by SHA or head number), else the `each` plans of its branches. */
  plansFor<T extends PlanTarget>(plans: T[], sha: string): T[] {
    const specific = plans.filter(
      (p) =>
        p.sha === sha ||
        (p.branch !== undefined &&
          typeof p.head === 'number' &&
          this.headAt(p.branch, p.head) === sha)
    )
    if (specific.length > 0) return specific
    return plans.filter(
      (p) => p.branch !== undefined && p.head === 'each' && this.headsOf(p.branch).includes(sha)
    )
  }

  /** Scenario plans for `sha` (see plansFor), plus the plans the fake made for that SHA. */
  private allPlansFor<T extends PlanTarget>(plans: T[], sha: string): T[] {
    const made = plans.filter((p) => this.madeByFake.has(p))
    const scenario = plans.filter((p) => !this.madeByFake.has(p))
    return [...this.plansFor(scenario, sha), ...made.filter((p) => p.sha === sha)]
  }

  checkRunsFor(sha: string): CheckRunView[] {
    const seenAt = this.state.shaSeenAt[sha]
    if (seenAt === undefined) return []
    const views: CheckRunView[] = []
    for (const plan of this.allPlansFor(this.state.checkRuns, sha)) {
      const moment = timelineAt(plan.timeline, plan.startsAt ?? seenAt, this.now())
      if (!moment) continue
      views.push({
        ...this.identify(plan, sha),
        status: moment.status,
        conclusion: moment.conclusion,
        startedAt: moment.startedAt,
        completedAt: moment.completedAt,
        sha,
        name: plan.name,
        plan
      })
    }
    return views.sort((a, b) => a.startedAt - b.startedAt || a.id - b.id)
  }

  private runIdOf(sha: string, workflow: string): number {
    return this.id(`run:${sha}:${workflow}`, 'run')
  }

  private identify(
    plan: CheckRunPlan,
    sha: string
  ): Pick<
    CheckRunView,
    'id' | 'app' | 'runId' | 'runAttempt' | 'checkSuiteId' | 'workflow' | 'detailsUrl' | 'htmlUrl'
  > {
    const { serverUrl } = this.urls
    const { owner, repo } = this.state
    const key = `${this.uid(plan)}@${sha}`
    const app = plan.app ?? ACTIONS_APP
    const id = plan.id ?? this.id(`check:${key}`, 'checkRun')
    if (app === ACTIONS_APP) {
      const workflow = plan.workflow ?? 'CI'
      const runId = plan.runId ?? this.runIdOf(sha, workflow)
      const checkSuiteId = plan.checkSuiteId ?? this.id(`suite:run:${runId}`, 'suite')
      const htmlUrl = `${serverUrl}/${owner}/${repo}/actions/runs/${runId}/job/${id}`
      return {
        id,
        app,
        runId,
        runAttempt: plan.runAttempt ?? 1,
        checkSuiteId,
        workflow,
        detailsUrl: plan.detailsUrl ?? htmlUrl,
        htmlUrl
      }
    }
    const checkSuiteId = plan.checkSuiteId ?? this.id(`suite:${app}:${sha}`, 'suite')
    const htmlUrl = `${serverUrl}/${owner}/${repo}/runs/${id}`
    return {
      id,
      app,
      runId: null,
      runAttempt: 1,
      checkSuiteId,
      workflow: null,
      detailsUrl: plan.detailsUrl ?? htmlUrl,
      htmlUrl
    }
  }

  /** Every visible check run of every SHA seen so far. */
  allCheckRuns(): CheckRunView[] {
    return Object.keys(this.state.shaSeenAt).flatMap((sha) => this.checkRunsFor(sha))
  }

  branchOfSha(sha: string): string | null {
    for (const branch of Object.keys(this.state.heads)) {
      if (this.headsOf(branch).includes(sha)) return branch
    }
    return null
  }

  /** Every visible workflow run: runs of Actions jobs and workflow-run plans, newest first. */
  workflowRuns(): WorkflowRunView[] {
    const now = this.now()
    const runs = new Map<
      number,
      { sha: string; jobs: CheckRunView[]; plan?: WorkflowRunPlan; from?: number }
    >()
    for (const job of this.allCheckRuns()) {
      if (job.runId === null) continue
      const run = runs.get(job.runId) ?? { sha: job.sha, jobs: [] }
      run.jobs.push(job)
      runs.set(job.runId, run)
    }
    for (const [sha, seenAt] of Object.entries(this.state.shaSeenAt)) {
      for (const plan of this.allPlansFor(this.state.workflowRuns, sha)) {
        const id = plan.runId ?? this.runIdOf(sha, plan.workflow)
        const run = runs.get(id) ?? { sha, jobs: [] }
        runs.set(id, { ...run, plan, from: plan.startsAt ?? seenAt })
      }
    }
    const views: WorkflowRunView[] = []
    for (const [id, run] of runs) {
      const moment = run.plan ? timelineAt(run.plan.timeline, run.from ?? now, now) : undefined
      if (run.jobs.length === 0 && !moment) continue
      const latest = latestJobs(run.jobs)
      const first = run.jobs[0]
      const workflow = this.workflowNamed(run.plan?.workflow ?? first?.workflow ?? 'CI')
      const state =
        run.jobs.length > 0
          ? statusOfJobs(latest)
          : { status: moment?.status ?? 'queued', conclusion: moment?.conclusion ?? null }
      const starts = [...run.jobs.map((j) => j.startedAt), ...(moment ? [moment.startedAt] : [])]
      const changes = [
        ...run.jobs.map((j) => j.completedAt ?? j.startedAt),
        ...(moment ? [moment.changedAt] : [])
      ]
      const attempt = Math.max(1, ...run.jobs.map((j) => j.runAttempt))
      const attemptStarts = run.jobs.filter((j) => j.runAttempt === attempt).map((j) => j.startedAt)
      views.push({
        id,
        workflow,
        event: run.plan?.event ?? 'push',
        sha: run.sha,
        headBranch: run.plan?.headBranch ?? this.branchOfSha(run.sha),
        ...state,
        attempt,
        createdAt: Math.min(...starts),
        updatedAt: Math.max(...changes),
        attemptStartedAt: Math.min(...(attemptStarts.length > 0 ? attemptStarts : starts)),
        checkSuiteId: first?.checkSuiteId ?? this.id(`suite:run:${id}`, 'suite'),
        jobs: run.jobs
      })
    }
    return views.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
  }

  workflowRun(id: number): WorkflowRunView | undefined {
    return this.workflowRuns().find((r) => r.id === id)
  }

  // --- dispatches and re-runs ---------------------------------------------------------------

  /**
   * A `workflow_dispatch`: records it and starts a run on the ref's head that moves as the
   * dispatched-run plan says. Undefined when the ref is not a branch.
   */
  dispatch(
    workflow: Workflow,
    workflowId: string,
    ref: string,
    inputs: Record<string, unknown>
  ): DispatchRecord | undefined {
    const branch = ref.replace(/^refs\/heads\//, '')
    const sha = this.state.branches[branch]
    if (!sha) return undefined
    const at = this.now()
    const runId = ++this.counters.run
    const record: DispatchRecord = { workflow: workflowId, ref, inputs, at, runId }
    this.state.dispatches.push(record)
    this.markSeen(sha)
    const plan = { ...this.dispatchedRuns, ...(this.onDispatch?.(record) ?? {}) }
    const queued = plan.queuedSeconds ?? 5
    const running = plan.runSeconds ?? 60
    const run: WorkflowRunPlan = {
      sha,
      headBranch: branch,
      workflow: workflow.name,
      event: 'workflow_dispatch',
      runId,
      startsAt: at,
      timeline: [
        { at: 0, status: 'queued' },
        { at: queued, status: 'in_progress' },
        { at: queued + running, status: 'completed', conclusion: plan.conclusion ?? 'success' }
      ]
    }
    this.madeByFake.add(run)
    this.state.workflowRuns.push(run)
    for (const job of plan.jobs ?? []) {
      const end = job.conclusion === 'skipped' ? 0 : queued + running
      const check: CheckRunPlan = {
        sha,
        name: job.name,
        workflow: workflow.name,
        runId,
        startsAt: at,
        timeline:
          job.conclusion === 'skipped'
            ? [{ at: end, status: 'completed', conclusion: 'skipped' }]
            : [
                { at: 0, status: 'queued' },
                { at: queued, status: 'in_progress' },
                { at: end, status: 'completed', conclusion: job.conclusion }
              ],
        ...(job.steps ? { steps: job.steps } : {})
      }
      this.madeByFake.add(check)
      this.state.checkRuns.push(check)
    }
    this.lastDispatchDetails = plan.runDetails ?? true
    return record
  }

  /** Whether the latest dispatch may answer with its run's id (see `DispatchedRunPlan`). */
  lastDispatchDetails = true

  /** Jobs `rerun-failed-jobs` would re-run: the latest attempts that failed. */
  failedJobs(run: WorkflowRunView): CheckRunView[] {
    return latestJobs(run.jobs).filter((j) => RERUNNABLE.includes(j.conclusion ?? ''))
  }

  /**
   * Starts a new attempt of the run for these jobs, now: each follows its plan's next `rerun`
   * entry, or repeats the plan's outcome when there is none.
   */
  rerun(run: WorkflowRunView, jobs: CheckRunView[]): void {
    const attempt = run.attempt + 1
    const startsAt = this.now()
    for (const job of jobs) {
      const root = this.rerunRoots.get(job.plan) ?? job.plan
      const countKey = `${this.uid(root)}@${job.sha}`
      const count = this.rerunCounts.get(countKey) ?? 0
      this.rerunCounts.set(countKey, count + 1)
      const entry: RerunOutcome | undefined = root.rerun?.[count]
      const outcome: Pick<CheckRunPlan, 'timeline' | 'output' | 'annotations' | 'log'> = entry
        ? {
            timeline: entry.timeline ?? withConclusion(fromZero(root.timeline), entry.conclusion),
            ...(entry.output ? { output: entry.output } : {}),
            ...(entry.annotations ? { annotations: entry.annotations } : {}),
            ...(entry.log !== undefined ? { log: entry.log } : {})
          }
        : {
            timeline: fromZero(root.timeline),
            ...(root.output ? { output: root.output } : {}),
            ...(root.annotations ? { annotations: root.annotations } : {}),
            ...(root.log !== undefined ? { log: root.log } : {})
          }
      const plan: CheckRunPlan = {
        sha: job.sha,
        name: job.name,
        app: job.app,
        ...(job.workflow ? { workflow: job.workflow } : {}),
        ...(job.runId !== null ? { runId: job.runId } : {}),
        runAttempt: attempt,
        checkSuiteId: job.checkSuiteId,
        startsAt,
        ...outcome
      }
      this.rerunRoots.set(plan, root)
      this.madeByFake.add(plan)
      this.state.checkRuns.push(plan)
    }
  }

  /** Statuses of `sha` that exist now, newest first. */
  statusesFor(sha: string): StatusView[] {
    const seenAt = this.state.shaSeenAt[sha]
    const views: StatusView[] = []
    if (seenAt !== undefined) {
      for (const plan of this.plansFor<StatusPlan>(this.state.statuses, sha)) {
        for (const m of statusEventsAt(plan, seenAt, this.now())) {
          views.push({
            id: this.id(`status:${this.uid(plan)}@${sha}#${m.index}`, 'status'),
            sha,
            context: plan.context,
            state: m.event.state,
            description: m.event.description ?? null,
            targetUrl: m.event.targetUrl ?? null,
            createdAt: m.createdAt
          })
        }
      }
    }
    for (const created of this.state.createdStatuses) {
      if (created.sha !== sha) continue
      views.push({ id: this.id(`created-status:${this.uid(created)}`, 'status'), ...created })
    }
    return views.sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
  }

  // --- issues, pulls, comments --------------------------------------------------------------

  ensureLabel(name: string): void {
    if (!this.state.labels.includes(name)) this.state.labels.push(name)
  }

  addComment(issue: number, body: string, user?: string): number {
    const id = ++this.counters.comment
    this.state.comments.push({
      id,
      issue,
      body,
      user: user ?? this.state.actor,
      createdAt: this.now(),
      updatedAt: this.now()
    })
    return id
  }

  addPull(seed: {
    number?: number | undefined
    head: string
    base: string
    title: string
    body: string | null
    draft: boolean
    state: 'open' | 'closed'
  }): number {
    const number = seed.number ?? this.nextNumber()
    const { head, base, title, body, draft, state } = seed
    const now = this.now()
    this.state.pulls.push({
      number,
      head,
      base,
      title,
      body,
      draft,
      state,
      createdAt: now,
      updatedAt: now
    })
    this.state.issues.push({
      number,
      title: seed.title,
      body: seed.body,
      state: seed.state,
      labels: [],
      pull: number,
      createdAt: now,
      updatedAt: now
    })
    return number
  }
}

/** The timeline with `conclusion` on its completed events (unchanged when undefined). */
function withConclusion(
  timeline: CheckRunEvent[],
  conclusion: CheckConclusion | undefined
): CheckRunEvent[] {
  if (conclusion === undefined) return timeline
  return timeline.map((e) => (e.status === 'completed' ? { ...e, conclusion } : e))
}
