/**
 * The layer rule (README: "Development"): which folder of src/ may import which. The table is
 * the picture in the README; the last test runs the rule over the real tree.
 */
import { describe, expect, it } from '@jest/globals'
import { ESLint, Linter } from 'eslint'
import tseslint from 'typescript-eslint'
import layers, { ALLOWED, layerOf } from '../../scripts/lint/layers.mjs'

const linter = new Linter({ configType: 'flat' })
const config: Linter.Config[] = [
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    plugins: { layers },
    rules: { 'layers/direction': 'error' as const }
  }
]

/** The rule's findings for `importer` importing `spec`. */
function findings(importer: string, spec: string): string[] {
  return linter
    .verify(`import { x } from '${spec}'\nexport const y = x\n`, config, { filename: importer })
    .map((message) => message.ruleId ?? message.message)
}

describe('layerOf', () => {
  it.each([
    ['src/core/rules/guard.ts', 'core'],
    ['src/core/signature/parsers/jest.ts', 'core'],
    ['src/render/fix-brief.ts', 'render'],
    ['src/statefile/projection.ts', 'statefile'],
    ['src/ports.ts', 'ports'],
    ['src/ports.js', 'ports'],
    ['src/adapters/github/rest.ts', 'adapters'],
    ['src/app/gate/gate.ts', 'app'],
    ['src/main.ts', 'entry'],
    ['src/cli/doctor.ts', 'entry'],
    ['__tests__/lint/layers.test.ts', null],
    ['scripts/demo.ts', null]
  ])('%s is in %s', (path, layer) => {
    expect(layerOf(path)).toBe(layer)
  })
})

describe('layers/direction', () => {
  // Each row: importer, import specifier, allowed?
  it.each([
    ['src/core/rules/guard.ts', '../ledger.js', true],
    ['src/core/rules/guard.ts', '../../render/fix-brief.js', false],
    ['src/core/ledger.ts', '../statefile/ci-gate-section.js', false],
    ['src/core/checks/observation.ts', '../../ports.js', false],
    ['src/render/fix-brief.ts', '../core/rules/guard.js', true],
    ['src/render/fix-brief.ts', '../statefile/history.js', false],
    ['src/statefile/projection.ts', '../render/fix-brief.js', true],
    ['src/statefile/projection.ts', '../app/program-files.js', false],
    ['src/ports.ts', './core/github.js', true],
    ['src/ports.ts', './adapters/store.js', false],
    ['src/adapters/store.ts', '../ports.js', true],
    ['src/adapters/store.ts', '../app/update-file.js', false],
    ['src/adapters/github/rest.ts', '../../render/comments.js', false],
    ['src/app/reconcile.ts', '../statefile/projection.js', true],
    ['src/app/reconcile.ts', '../adapters/store.js', false],
    ['src/app/gate/gate.ts', '../../main.js', false],
    ['src/main.ts', './adapters/store.js', true],
    ['src/deps.ts', './app/command-deps.js', true],
    ['src/core/signature/extract.ts', 'zod', true]
  ])('%s importing %s: allowed %s', (importer, spec, allowed) => {
    expect(findings(importer, spec)).toEqual(allowed ? [] : ['layers/direction'])
  })

  it('lets every layer import itself and the entry points import everything', () => {
    for (const [layer, allowed] of Object.entries(ALLOWED)) {
      if (layer === 'entry') expect(allowed).toEqual(expect.arrayContaining(Object.keys(ALLOWED)))
      else expect(allowed).toContain(layer)
    }
  })

  it('finds no upward import in src/', async () => {
    const eslint = new ESLint({
      overrideConfigFile: true,
      overrideConfig: config,
      ignore: false
    })
    const results = await eslint.lintFiles(['src/**/*.ts'])
    expect(results.length).toBeGreaterThan(100)
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([])
  })
})
