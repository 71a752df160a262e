// ESM jest: sources are TypeScript compiled per file by swc (no type checking here;
// `npm run typecheck` does that), test files import siblings with `.js` specifiers.
// Two projects: `unit` (pure modules and single adapters) and `integration` (the action run
// in-process against the fake GitHub API, and a few smoke runs of the bundle).
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
  transform
}
const integration = [
  '<rootDir>/__tests__/integration/**/*.test.ts',
  '<rootDir>/__tests__/smoke/**/*.test.ts',
  '<rootDir>/__tests__/chaos/**/*.test.ts',
  '<rootDir>/__tests__/hostile/**/*.test.ts',
  '<rootDir>/__tests__/concurrency/**/*.test.ts'
]

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...integration.map((glob) => glob.replace('<rootDir>/', '/').replace('/**/*.test.ts', '/'))
      ]
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: integration,
      setupFilesAfterEnv: ['<rootDir>/__tests__/setup/integration.ts']
    }
  ],
  coverageProvider: 'v8',
  collectCoverageFrom: ['src/**/*.ts', '!src/index.ts', '!src/cli.ts'],
  coverageReporters: ['text-summary', 'json-summary']
}
