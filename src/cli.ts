#!/usr/bin/env node
/**
 * `autoloop-ci-gate <command> [--flag value]...`: the action's core from a shell, for local
 * debugging, reading the same runner variables (GITHUB_REPOSITORY, GITHUB_API_URL, …).
 * `signature` reads CI logs and prints their failure keys and signature.
 */
import { parseArgs } from 'node:util'
import { run } from './main.js'
import { systemClock } from './adapters/clock.js'
import { realConnect } from './deps.js'
import type { Logger } from './ports.js'
import { INPUT_NAMES } from './core/inputs.js'
import { runBriefCommand } from './cli/brief.js'
import { runSignatureCommand } from './cli/signature.js'
import { runDoctorCli } from './cli/doctor.js'
import { createGitHubClient } from './adapters/github/client.js'
import { RestGitHub } from './adapters/github/rest.js'
import { readEnvironment } from './core/environment.js'

const USAGE = `Usage:
  autoloop-ci-gate gate|settle|record|reset|reconcile [--<input> <value>]...
  autoloop-ci-gate signature [--log FILE]... [--json]
  autoloop-ci-gate doctor [--dir PATH] [--json] [--state-branch BRANCH]
  autoloop-ci-gate brief [--log FILE]... [--max-bytes N]

Inputs are the action's (see action.yml), e.g. --program my-program --push false.
The token comes from --github-token, GITHUB_TOKEN or GH_TOKEN.`

/** Progress goes to standard error, so standard output holds only the summary and outputs. */
const consoleLogger: Logger = {
  debug: (message) => {
    if (process.env.RUNNER_DEBUG === '1') process.stderr.write(`debug: ${message}\n`)
  },
  info: (message) => void process.stderr.write(`${message}\n`),
  warning: (message) => void process.stderr.write(`warning: ${message}\n`),
  error: (message) => void process.stderr.write(`error: ${message}\n`),
  async group(title, body) {
    process.stderr.write(`▸ ${title}\n`)
    return body()
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === 'brief') {
    return runBriefCommand(rest, {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr
    })
  }
  if (command === 'signature') {
    return runSignatureCommand(rest, {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr
    })
  }
  if (command === 'doctor') {
    return runDoctorCli(rest, {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      connect() {
        const token = process.env.GITHUB_TOKEN || process.env.GH_TOKEN
        if (!token || !process.env.GITHUB_REPOSITORY) return null
        const environment = readEnvironment(process.env, process.cwd())
        const client = createGitHubClient({
          token,
          baseUrl: environment.apiUrl,
          clock: systemClock,
          log: consoleLogger
        })
        return new RestGitHub(client, environment.repository)
      }
    })
  }
  if (!command || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`)
    return command ? 0 : 2
  }
  let parsed: Record<string, string | boolean | undefined>
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(INPUT_NAMES.map((name) => [name, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`)
    return 2
  }
  const values = new Map<string, string>([['command', command]])
  for (const [name, value] of Object.entries(parsed))
    if (typeof value === 'string') values.set(name, value)
  if (!values.has('github-token'))
    values.set('github-token', process.env.GITHUB_TOKEN ?? process.env.GH_TOKEN ?? '')
  let exitCode = 0
  const outputs: string[] = []
  await run({
    io: {
      readInput: (name) => values.get(name) ?? '',
      setOutput: (name, value) => {
        if (value !== '') outputs.push(`${name}=${value}`)
      },
      async writeSummary(markdown) {
        process.stdout.write(`${markdown}\n`)
      },
      setFailed(message) {
        exitCode = 1
        process.stderr.write(`Error: ${message}\n`)
      },
      setSecret: () => undefined
    },
    log: consoleLogger,
    connect: realConnect({
      env: process.env,
      cwd: process.cwd(),
      log: consoleLogger,
      clock: systemClock
    })
  })
  if (outputs.length > 0) process.stdout.write(`${outputs.join('\n')}\n`)
  return exitCode
}

process.exitCode = await main(process.argv.slice(2))
