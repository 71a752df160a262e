// What `actions/github-script` gives a compiled gh-aw step, for one vendored gh-aw script:
// `core`, `exec`, `io` (the @actions packages), `github` (an Octokit client on
// GITHUB_API_URL, with `rest` and `graphql`), `context` (from the GITHUB_* variables and the
// event payload file), handed to gh-aw's own setup_globals.cjs; then the script's `main()`,
// as the lock's `script:` does. Run by gh-aw-runtime.ts in a child process, one per step.
//
//   node github-script.mjs <request.json>
//   request: { dir, script, call?: { fn, args, resultFile } }
//   dir: vendor/gh-aw-actions/<tag>/setup/js; script: a file name there (without .cjs)
//   call: call an exported function instead of main() and write its result as JSON
import * as core from '@actions/core'
import * as exec from '@actions/exec'
import * as io from '@actions/io'
import { Octokit } from '@octokit/rest'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'

const request = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const env = process.env
const [owner, repo] = (env.GITHUB_REPOSITORY ?? '/').split('/')
const payload = env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) : {}
const context = {
  payload,
  eventName: env.GITHUB_EVENT_NAME,
  sha: env.GITHUB_SHA,
  ref: env.GITHUB_REF,
  workflow: env.GITHUB_WORKFLOW,
  action: env.GITHUB_ACTION,
  actor: env.GITHUB_ACTOR,
  job: env.GITHUB_JOB,
  runAttempt: Number(env.GITHUB_RUN_ATTEMPT ?? 1),
  runNumber: Number(env.GITHUB_RUN_NUMBER ?? 1),
  runId: Number(env.GITHUB_RUN_ID),
  apiUrl: env.GITHUB_API_URL,
  serverUrl: env.GITHUB_SERVER_URL,
  graphqlUrl: `${env.GITHUB_API_URL}/graphql`,
  repo: { owner, repo },
  issue: { owner, repo, number: (payload.issue ?? payload.pull_request ?? payload).number }
}
const github = new Octokit({ auth: env.GH_AW_SCRIPT_TOKEN, baseUrl: env.GITHUB_API_URL })

const require = createRequire(join(request.dir, 'setup_globals.cjs'))
require('./setup_globals.cjs').setupGlobals(core, github, context, exec, io)
const module = require(`./${request.script}.cjs`)
try {
  if (request.call) {
    const result = await module[request.call.fn](...request.call.args)
    writeFileSync(request.call.resultFile, JSON.stringify(result ?? null))
  } else {
    await module.main()
  }
} catch (error) {
  // github-script fails the step on an uncaught error
  core.setFailed(error instanceof Error ? error.message : String(error))
}
