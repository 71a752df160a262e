/**
 * The layers of src/ and which may import which (README: "Development"). Lower layers never
 * import higher ones, so "is this pure?" and "where does X live?" are answered by the path:
 *
 *   core ← render ← statefile ← app ← (main, deps, index, cli)
 *   core ← ports  ← adapters  ← (main, deps, index, cli)
 *
 * core, render and statefile are pure (see the restrictions in eslint.config.js); adapters
 * talk to GitHub, git, processes and files behind the interfaces in ports.ts; app is the
 * commands, written against ports only; the entry points wire adapters into app.
 */
import { dirname, relative, resolve, sep } from 'node:path'

/** Layer → the layers its files may import. */
export const ALLOWED = {
  core: ['core'],
  render: ['core', 'render'],
  statefile: ['core', 'render', 'statefile'],
  ports: ['core', 'ports'],
  adapters: ['core', 'ports', 'adapters'],
  app: ['core', 'render', 'statefile', 'ports', 'app'],
  entry: ['core', 'render', 'statefile', 'ports', 'adapters', 'app', 'entry']
}

/** The layer of a file path relative to the repository root, or null outside src/. */
export function layerOf(path) {
  const parts = path.split(sep).join('/').split('/')
  if (parts[0] !== 'src') return null
  if (parts.length === 2)
    return parts[1].replace(/\.[cm]?[jt]s$/, '') === 'ports' ? 'ports' : 'entry'
  return parts[1] in ALLOWED && parts[1] !== 'entry' && parts[1] !== 'ports' ? parts[1] : 'entry'
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'a file imports only from its own layer and the layers below it' },
    schema: [],
    messages: {
      upward:
        '{{from}} may not import {{to}} ({{target}}): {{from}} imports only {{allowed}}. Move the shared part down, or take it as an argument.'
    }
  },
  create(context) {
    const cwd = context.cwd
    const file = relative(cwd, resolve(cwd, context.filename))
    const from = layerOf(file)
    if (from === null) return {}
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return
      const target = relative(cwd, resolve(dirname(resolve(cwd, file)), spec))
      const to = layerOf(target)
      if (to === null || ALLOWED[from].includes(to)) return
      context.report({
        node,
        messageId: 'upward',
        data: { from, to, target: target.split(sep).join('/'), allowed: ALLOWED[from].join(', ') }
      })
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value)
    }
  }
}

export default { rules: { direction: rule } }
