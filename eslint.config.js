// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.scratch/**', '.bench-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  {
    // The page's browser code (tsconfig.web.json): no Node modules, nothing from the service's rooms.
    files: ['src/web/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', '../*'], message: 'src/web runs in the browser: it imports only src/web.' }] },
      ],
    },
  },
  {
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'express',
                'bullmq',
                'piscina',
                'ioredis',
                'node:*',
                'pino*',
                'csv-*',
                '../api/*',
                '../bulk/*',
                '../queue/*',
              ],
              message: 'src/domain is pure: no I/O, frameworks or transport imports.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'parseFloat', 'parseInt'],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'round', message: 'Use the Dec rounding of src/domain/rounding.ts (rules.md §1).' },
        { object: 'Number', property: 'parseFloat', message: 'No binary floating point in the domain.' },
      ],
    },
  },
);
