/**
 * The fake's repository model: state seeded from a scenario, the virtual clock, branch head
 * tracking, stable ids, and the views of check runs and statuses at the current virtual time.
 * No HTTP here.
 */
import { createHash } from 'node:crypto'
import { readBranchHeads } from './git.js'
import { checkRunAt, statusEventsAt } from './timeline.js'
import type {
  CheckRunPlan,
  CheckRunView,
  FakeState,
  PlanTarget,
  RateLimitCounters,
  Scenario,
  StatusPlan,
  StatusState
} from './types.js'

export const ACTIONS_APP = 'github-actions'
const HOUR = 3_600_000

export interface StatusView {
  id: number
  sha: string
  context: string
  state: StatusState
  description: string | null
  targetUrl: string | null
  createdAt: number
}

export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex')
}

/** Git's blob id of a UTF-8 text. */
export function blobSha(content: string): string {
  const bytes = Buffer.from(content, 'utf8')
  return createHash('sha1')
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest('hex')
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

export class Model {
  readonly state: FakeState
  readonly gitDir: string | undefined
  readonly rateLimit: RateLimitCounters
  private clock: number
  private started = false
  private readonly lastGitHeads: Record<string, string> = {}
  private readonly planUids = new WeakMap<object, number>()
  private readonly ids = new Map<string, number>()
  private readonly counters = {
    plan: 0,
    checkRun: 40_000_000_000,
    run: 19_000_000_000,
    suite: 37_000_000_000,
    status: 30_000_000_000,
    comment: 3_000_000_000,
    number: 0
  }

  constructor(
    scenario: Scenario,
    readonly urls: { serverUrl: string; apiUrl: string }
  ) {
    this.clock = startTimeOf(scenario)
    this.gitDir = scenario.gitDir
    const defaultBranch = scenario.defaultBranch ?? 'main'
    const actor = scenario.actor ?? 'github-actions[bot]'
    this.state = {
      owner: scenario.owner ?? 'octo-org',
      repo: scenario.repo ?? 'demo',
      defaultBranch,
      actor,
      branches: { ...scenario.branches },
      heads: {},
      shaSeenAt: {},
      commits: {},
      checkRuns: structuredClone(scenario.checkRuns ?? []),
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
      resetAt: this.clock + HOUR
    }
    this.seedContents(scenario)
    this.seedIssues(scenario)
    this.syncHeads()
    this.started = true
  }

  private seedContents(scenario: Scenario): void {
    const { state } = this
    for (const [branch, files] of Object.entries(scenario.contents ?? {})) {
      const sha = state.branches[branch] ?? fakeSha(`seed:${state.owner}/${state.repo}:${branch}`)
      state.branches[branch] = sha
      state.commits[sha] = { sha, message: `seed ${branch}`, parents: [], files: { ...files } }
    }
    if (!state.branches[state.defaultBranch] && !this.gitDir) {
      state.branches[state.defaultBranch] = fakeSha(
        `seed:${state.owner}/${state.repo}:${state.defaultBranch}`
      )
    }
    for (const sha of Object.values(state.branches)) {
      state.commits[sha] ??= { sha, message: 'seed', parents: [], files: {} }
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
        createdAt: this.clock,
        updatedAt: this.clock
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

  // --- virtual time -------------------------------------------------------------------------

  now(): number {
    return this.clock
  }

  setNow(ms: number): void {
    this.clock = ms
  }

  advance(ms: number): number {
    this.clock += Math.max(0, ms)
    return this.clock
  }

  /** Starts a new rate-limit window when the current one has passed. */
  rollRateLimitWindow(): void {
    if (this.clock >= this.rateLimit.resetAt) {
      this.rateLimit.used = 0
      this.rateLimit.resetAt = this.clock + HOUR
    }
  }

  // --- branches and heads -------------------------------------------------------------------

  /** Merges refs from gitDir (a changed git ref wins) and records new branch heads. */
  syncHeads(): void {
    const { state } = this
    if (this.gitDir) {
      for (const [name, sha] of Object.entries(readBranchHeads(this.gitDir))) {
        if (this.lastGitHeads[name] === sha) continue
        this.lastGitHeads[name] = sha
        state.branches[name] = sha
        state.commits[sha] ??= { sha, message: '', parents: [] }
      }
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

  setBranch(name: string, sha: string): void {
    this.state.branches[name] = sha
    this.state.commits[sha] ??= { sha, message: '', parents: [] }
    this.syncHeads()
  }

  headsOf(branch: string): string[] {
    const history = this.state.heads[branch]
    if (!history) return []
    return history.initial ? [history.initial, ...history.pushed] : [...history.pushed]
  }

  markSeen(sha: string): void {
    this.state.shaSeenAt[sha] ??= this.clock
  }

  /** Resolves a branch name, `heads/x`, `refs/heads/x`, a full SHA or a unique SHA prefix. */
  resolveRef(ref: string): string | undefined {
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
    if (sha) this.markSeen(sha)
    return sha
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

  private id(key: string, counter: 'checkRun' | 'run' | 'suite' | 'status' | 'comment'): number {
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

  checkRunsFor(sha: string): CheckRunView[] {
    const seenAt = this.state.shaSeenAt[sha]
    if (seenAt === undefined) return []
    const views: CheckRunView[] = []
    for (const plan of this.plansFor(this.state.checkRuns, sha)) {
      const moment = checkRunAt(plan, seenAt, this.clock)
      if (!moment) continue
      views.push({ ...this.identify(plan, sha), ...moment, sha, name: plan.name, plan })
    }
    return views.sort((a, b) => a.startedAt - b.startedAt || a.id - b.id)
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
      const runId = plan.runId ?? this.id(`run:${sha}:${workflow}`, 'run')
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

  /** Statuses of `sha` that exist now, newest first. */
  statusesFor(sha: string): StatusView[] {
    const seenAt = this.state.shaSeenAt[sha]
    const views: StatusView[] = []
    if (seenAt !== undefined) {
      for (const plan of this.plansFor<StatusPlan>(this.state.statuses, sha)) {
        for (const m of statusEventsAt(plan, seenAt, this.clock)) {
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
      createdAt: this.clock,
      updatedAt: this.clock
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
    this.state.pulls.push({
      number,
      head,
      base,
      title,
      body,
      draft,
      state,
      createdAt: this.clock,
      updatedAt: this.clock
    })
    this.state.issues.push({
      number,
      title: seed.title,
      body: seed.body,
      state: seed.state,
      labels: [],
      pull: number,
      createdAt: this.clock,
      updatedAt: this.clock
    })
    return number
  }
}
