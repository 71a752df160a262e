import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'
import layers from './scripts/lint/layers.mjs'

/**
 * The pure layers (README: "Development"): decisions, parsers, renderers, state-file codecs.
 * They take time as a number and text as strings; they read no clock, no network, no file.
 * Which layer may import which is `layers/direction` (scripts/lint/layers.mjs).
 */
const PURE_LAYERS = ['src/core/**/*.ts', 'src/render/**/*.ts', 'src/statefile/**/*.ts']

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
    files: ['src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/direction': 'error' }
  },
  {
    files: PURE_LAYERS,
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
