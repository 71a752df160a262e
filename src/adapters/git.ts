/**
 * The git adapter: read HEAD and push it to the program branch, fast-forward only.
 */
import type { GitPort } from '../ports.js'
import { ActionError } from '../core/errors.js'
import { credentialForms, gitAuthEnv } from './credentials.js'
import { runGit } from './process.js'

export interface GitOptions {
  cwd: string
  remote?: string
  /** A token for the push (`push-token`), sent as an HTTP basic auth header for the server. */
  pushToken?: string | undefined
  serverUrl: string
}

export function createGit(options: GitOptions): GitPort {
  const remote = options.remote ?? 'origin'
  const secrets = options.pushToken ? credentialForms(options.pushToken) : []
  const redact = (text: string) =>
    secrets.reduce((out, secret) => out.split(secret).join('***'), text)
  return {
    async headSha() {
      const result = await runGit(['rev-parse', '--verify', 'HEAD^{commit}'], {
        cwd: options.cwd
      })
      if (result.code !== 0)
        throw new ActionError(
          `Cannot read the local HEAD in ${options.cwd}: ${result.stderr.trim()}`,
          {
            fix: 'check out the repository (actions/checkout) and commit the iteration before the gate, or pass `push: false` with `sha`.'
          }
        )
      return result.stdout.toString().trim()
    },
    async push(sha, branch) {
      const auth = options.pushToken
        ? gitAuthEnv(options.serverUrl, options.pushToken, process.env)
        : {}
      const result = await runGit(['push', '--porcelain', remote, `${sha}:refs/heads/${branch}`], {
        cwd: options.cwd,
        env: auth
      })
      if (result.code === 0) return
      const output = redact(`${result.stdout}\n${result.stderr}`).trim()
      if (/\[rejected\]|non-fast-forward|fetch first|stale info/.test(output)) {
        throw new ActionError(
          `Push to ${branch} was rejected: the branch moved (it has commits that ${sha.slice(0, 12)} does not contain), so this iteration is not a fast-forward.`,
          {
            fix: `fetch ${branch}, rebase or merge the iteration onto it, and gate again; the gate never force-pushes. Git said: ${output}`
          }
        )
      }
      if (
        /Authentication failed|could not read Username|403|Permission to .* denied/i.test(output)
      ) {
        throw new ActionError(
          `Push to ${branch} was refused: the credentials cannot write to the repository.`,
          {
            fix: `give the job \`permissions: contents: write\`, or pass a \`push-token\` (a GitHub App or fine-grained token with Contents: write). Git said: ${output}`
          }
        )
      }
      throw new ActionError(`git push to ${branch} failed (exit ${result.code}): ${output}`, {
        fix: 'check that the checkout has an `origin` remote and the job can reach it.'
      })
    }
  }
}
