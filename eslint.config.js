import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

/**
 * The pure core: decisions, parsers, renderers. It takes time as a number and text as
 * strings; it reads no clock, no network, no file, and imports none of the adapters.
 */
const PURE_MODULES = [
  'src/checks/reduce.ts',
  'src/checks/observation.ts',
  'src/signature/**/*.ts',
  'src/loop/**/*.ts',
  'src/gate/decide.ts',
  'src/state/text.ts',
  'src/state/machine-state.ts',
  'src/state/ci-gate-section.ts',
  'src/state/template.ts',
  'src/state/history.ts',
  'src/state/schema.ts',
  'src/state/projection.ts',
  'src/summary/**/*.ts',
  'src/text/**/*.ts',
  'src/issue/comments.ts',
  'src/failures/infrastructure.ts',
  'src/outputs.ts',
  'src/inputs.ts',
  'src/handover.ts',
  'src/doctor/model.ts',
  'src/doctor/setup.ts',
  'src/doctor/checks.ts',
  'src/doctor/ci-workflows.ts',
  'src/doctor/permissions.ts',
  'src/doctor/report.ts',
  'src/errors.ts'
]

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '__fixtures__/corpus/**', 'vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    // CommonJS, where jest loads a module with require() (the coverage runtime).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' }
  },
  {
    // Plain Node scripts (not TypeScript): Node's globals.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { URL: 'readonly', console: 'readonly', process: 'readonly', Buffer: 'readonly' }
    }
  },
  {
    files: PURE_MODULES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@actions/*', '@octokit/*'], message: 'pure modules talk to no API' },
            {
              group: [
                'fs',
                'fs/*',
                'node:fs',
                'node:fs/*',
                'child_process',
                'node:child_process',
                'http',
                'https',
                'node:http',
                'node:https',
                'net',
                'node:net',
                'node:os',
                'os'
              ],
              message: 'pure modules do no I/O'
            },
            {
              group: [
                '**/github/client*',
                '**/github/rest*',
                '**/deps*',
                '**/git.js',
                '**/state/store*',
                '**/state/program-state*',
                '**/state/memory-branch*',
                '**/commands/*',
                '**/main*',
                '**/clock*'
              ],
              message: 'pure modules import no adapter: take what they need as arguments'
            }
          ]
        }
      ],
      'no-restricted-globals': [
        'error',
        { name: 'fetch', message: 'pure modules do no I/O' },
        { name: 'setTimeout', message: 'time comes in as a number' },
        { name: 'setInterval', message: 'time comes in as a number' },
        { name: 'process', message: 'pure modules read no environment' }
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'time comes in as a number' },
        { object: 'Math', property: 'random', message: 'randomness is injected' }
      ]
    }
  }
)
