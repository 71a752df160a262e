/* global process */
// ESM jest: sources are TypeScript compiled per file by swc (no type checking here;
// `npm run typecheck` does that), test files import siblings with `.js` specifiers.
// Projects by layer (README: "Development"):
// - `unit`: pure modules and single adapters, milliseconds each;
// - `integration`: the action run in-process against the fake GitHub API, and a few smoke
//   runs of the bundle (`npm test` runs these two, with coverage);
// - `reliability`: chaos, hostile CI text, concurrent writers: slower by design (real time,
//   child processes, hundreds of generated runs), `npm run test:reliability`;
// - `conformance`: gh-aw's own runtime scripts around the bundle, `npm run test:conformance`.
import { availableParallelism } from 'node:os'

const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
      module: { type: 'es6' }
    }
  ]
}
const common = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform,
  // One V8 coverage session per worker instead of one per test file (see the file).
  runtime: '<rootDir>/__tests__/setup/coverage-runtime.cjs',
  setupFilesAfterEnv: ['<rootDir>/__tests__/setup/timeout.ts']
}
/** A project's time limit per test (jest takes `testTimeout` from the global config only). */
const timeout = (ms) => ({ globals: { testTimeoutMs: ms } })
const integration = [
  '<rootDir>/__tests__/integration/**/*.test.ts',
  '<rootDir>/__tests__/smoke/**/*.test.ts'
]
const reliability = [
  '<rootDir>/__tests__/chaos/**/*.test.ts',
  '<rootDir>/__tests__/hostile/**/*.test.ts',
  '<rootDir>/__tests__/concurrency/**/*.test.ts'
]
// gh-aw's own runtime scripts around the bundle (docs/gh-aw.md: "gh-aw conformance"): about two
// minutes, so only `npm run test:conformance` runs it (GH_AW_CONFORMANCE=1).
const conformance = ['<rootDir>/__tests__/conformance/**/*.test.ts']

const projects = [
  {
    ...common,
    displayName: 'unit',
    ...timeout(15_000),
    testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
    testPathIgnorePatterns: [
      '/node_modules/',
      ...[...integration, ...reliability, ...conformance].map((glob) =>
        glob.replace('<rootDir>/', '/').replace('/**/*.test.ts', '/')
      )
    ]
  },
  // A run of virtual hours takes real seconds: 15 s per test is ten times what one needs.
  { ...common, displayName: 'integration', ...timeout(15_000), testMatch: integration },
  { ...common, displayName: 'reliability', ...timeout(60_000), testMatch: reliability },
  ...(process.env.GH_AW_CONFORMANCE
    ? [{ ...common, displayName: 'conformance', testMatch: conformance }]
    : [])
]
// The npm scripts name their projects here (`JEST_PROJECTS=unit,integration`) rather than with
// `--selectProjects`, which would take the test files given after it (`npm run test:unit --
// <file>`) for more project names and run the whole project.
const selected = process.env.JEST_PROJECTS?.split(',').filter(Boolean)
if (selected) {
  const unknown = selected.filter((name) => !projects.some((p) => p.displayName === name))
  if (unknown.length > 0) {
    throw new Error(
      `JEST_PROJECTS names no project ${unknown.join(', ')}. Fix: use ${projects.map((p) => p.displayName).join(', ')}`
    )
  }
}

/** Modules that declare types and nothing else (a test checks they stay so). */
export const TYPE_ONLY_MODULES = [
  'src/ports.ts',
  'src/core/github.ts',
  'src/core/signature/types.ts',
  'src/core/checks/observation.ts',
  'src/app/command-deps.ts'
]

/** @type {import('jest').Config} */
export default {
  // One worker per core: more workers than cores only add switching (and memory).
  maxWorkers: Math.max(1, availableParallelism()),
  projects: selected ? projects.filter((p) => selected.includes(p.displayName)) : projects,
  coverageProvider: 'v8',
  // Everything but the two entry points, which only wire the real runner in, and the modules
  // that hold no code to run.
  collectCoverageFrom: [
    'src/**/*.ts',
    '!src/index.ts',
    '!src/cli.ts',
    ...TYPE_ONLY_MODULES.map((path) => `!${path}`)
  ],
  coverageReporters: ['text-summary', 'json-summary'],
  // Per layer, below today's figures by a margin (the commands in app/ are measured in-process).
  // `global` is what no layer holds: the entry points (main, deps, cli/), whose wiring of the
  // real runner (realConnect, the system clock) only the smoke runs of the bundle exercise.
  coverageThreshold: {
    global: { statements: 93, branches: 80, functions: 65, lines: 93 },
    './src/core/': { statements: 96, branches: 88, functions: 97, lines: 96 },
    './src/render/': { statements: 97, branches: 89, functions: 97, lines: 97 },
    './src/statefile/': { statements: 96, branches: 87, functions: 97, lines: 96 },
    './src/adapters/': { statements: 90, branches: 79, functions: 88, lines: 90 },
    './src/app/': { statements: 93, branches: 83, functions: 96, lines: 93 }
  }
}
