import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => ['error', { patterns: patterns.map((group) => ({ group: [group], message: 'Crosses a source-root boundary (STYLE.md rule 5).' })) }];

const nativeDialogs = ['alert', 'confirm', 'prompt'];
const nativeDialogMessage = 'No native dialogs: show an in-app notice (FormAlert) or ask with useConfirmDialog.';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/server/db/migrations/**', 'test-results/**', 'playwright-report/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' } } },
  { files: ['src/shared/**'], rules: { 'no-restricted-imports': restrict(['#server/*', '#web/*', 'node:*', '../server/*', '../web/*']) } },
  { files: ['src/server/**'], rules: { 'no-restricted-imports': restrict(['#web/*', '../web/*', '../../web/*']) } },
  {
    files: ['src/web/**'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': restrict(['#server/*', '../server/*', '../../server/*', 'node:*']),
      // Pages speak in the page: FormAlert, useConfirmDialog, a field edited in place.
      'no-restricted-globals': ['error', ...nativeDialogs.map((name) => ({ name, message: nativeDialogMessage }))],
      'no-restricted-properties': [
        'error',
        ...['window', 'globalThis', 'self'].flatMap((object) => nativeDialogs.map((property) => ({ object, property, message: nativeDialogMessage }))),
      ],
    },
  },
  { files: ['src/web/**/*.test.ts', 'src/web/**/*.test.tsx'], rules: { 'no-restricted-imports': restrict(['#server/*', '../server/*', '../../server/*']) } },
  { files: ['src/server/features/**/*.routes.ts'], rules: { 'no-restricted-imports': restrict(['#web/*', '#server/db/*']) } },
);
