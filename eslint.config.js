import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const restrict = (patterns) => [
  'error',
  { patterns: patterns.map((group) => ({ group: [group], message: 'Crosses a source-root boundary (STYLE.md rule 5).' })) },
];

const webBoundaries = ['#server/*', '../server/*', '../../server/*', 'node:*'];
const webTestBoundaries = ['#server/*', '../server/*', '../../server/*'];

/**
 * A web feature imports no other feature: what two features share lives in src/web/api (query keys and
 * reads), src/web/components or src/web/lib. One block per feature and folder depth, since a relative
 * import leaves the feature by climbing as many folders as the file stands deep.
 */
const webFeatures = readdirSync(fileURLToPath(import.meta.resolve('./src/web/features')), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const featureMessage = 'A web feature imports no other feature: move what both need to src/web/api, src/web/components or src/web/lib.';
const featureBoundaries = (boundaries, tests) =>
  webFeatures.flatMap((feature) =>
    ['', '*/', '*/*/'].map((depth, climbs) => ({
      files: [`src/web/features/${feature}/${depth}*.${tests ? 'test.' : ''}{ts,tsx}`],
      ...(tests ? {} : { ignores: [`src/web/features/${feature}/**/*.test.{ts,tsx}`] }),
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              ...boundaries.map((group) => ({ group: [group], message: 'Crosses a source-root boundary (STYLE.md rule 5).' })),
              { regex: `^#web/features/(?!${feature}/)`, message: featureMessage },
              { regex: `^(\\.\\./)+features/(?!${feature}/)`, message: featureMessage },
              { regex: `^(\\.\\./){${climbs + 1}}(?!${feature}/)[^./]`, message: featureMessage },
            ],
          },
        ],
      },
    })),
  );

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
      'no-restricted-imports': restrict(webBoundaries),
      // Pages speak in the page: FormAlert, useConfirmDialog, a field edited in place.
      'no-restricted-globals': ['error', ...nativeDialogs.map((name) => ({ name, message: nativeDialogMessage }))],
      'no-restricted-properties': [
        'error',
        ...['window', 'globalThis', 'self'].flatMap((object) => nativeDialogs.map((property) => ({ object, property, message: nativeDialogMessage }))),
      ],
    },
  },
  { files: ['src/web/**/*.test.ts', 'src/web/**/*.test.tsx'], rules: { 'no-restricted-imports': restrict(webTestBoundaries) } },
  ...featureBoundaries(webBoundaries, false),
  ...featureBoundaries(webTestBoundaries, true),
  // Routes read the request and call services: the database is the services' (drizzle included).
  { files: ['src/server/features/**/*.routes.ts'], rules: { 'no-restricted-imports': restrict(['#web/*', '#server/db/*', 'drizzle-orm', 'drizzle-orm/*']) } },
);
