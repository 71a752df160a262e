/**
 * The git credential (README: "Security"): a token sent as an HTTP basic auth header for the
 * server's URL, as actions/checkout sends it. The header travels in git's environment
 * (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`), never on its command line,
 * which any user of the machine can read; and every form of the token is masked.
 */

/** The `Authorization: basic` value git sends: base64 of `x-access-token:<token>`. */
export function basicCredential(token: string): string {
  return Buffer.from(`x-access-token:${token}`).toString('base64')
}

/** Every form of a token that can reach a log: raw, as a basic auth pair, and base64. */
export function credentialForms(token: string): string[] {
  return [token, `x-access-token:${token}`, basicCredential(token)]
}

/**
 * Environment variables that make git send the token to `serverUrl`, added after any
 * `GIT_CONFIG_*` entries already in `env`. An empty value first clears the header
 * actions/checkout stored for GITHUB_TOKEN.
 */
export function gitAuthEnv(
  serverUrl: string,
  token: string,
  env: NodeJS.ProcessEnv = {}
): Record<string, string> {
  const key = `http.${serverUrl.replace(/\/+$/, '')}/.extraheader`
  const entries = [
    [key, ''],
    [key, `AUTHORIZATION: basic ${basicCredential(token)}`]
  ]
  const given = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10)
  const first = Number.isInteger(given) && given > 0 ? given : 0
  const vars: Record<string, string> = { GIT_CONFIG_COUNT: String(first + entries.length) }
  entries.forEach(([name, value], i) => {
    vars[`GIT_CONFIG_KEY_${first + i}`] = name as string
    vars[`GIT_CONFIG_VALUE_${first + i}`] = value as string
  })
  return vars
}
