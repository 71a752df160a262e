import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import prettier from 'eslint-config-prettier'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '__fixtures__/corpus/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    // Plain Node scripts (not TypeScript): Node's globals.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: { URL: 'readonly', console: 'readonly', process: 'readonly', Buffer: 'readonly' }
    }
  },
  {
    // Pure decision logic: no I/O, no clocks, no GitHub clients.
    files: [
      'src/checks/reduce.ts',
      'src/signature/**/*.ts',
      'src/state/markdown.ts',
      'src/inputs.ts'
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@actions/*',
            '@octokit/*',
            'node:fs',
            'node:child_process',
            'fs',
            'child_process'
          ]
        }
      ]
    }
  }
)
