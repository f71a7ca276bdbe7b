// @ts-check
import js from '@eslint/js';
import pluginQuery from '@tanstack/eslint-plugin-query';
import boundaries from 'eslint-plugin-boundaries';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The import rules of DESIGN.md, as architectural elements and the dependencies each may
 * have (eslint-plugin-boundaries), lowest first: contract ← lib ← engine ← db ← hooks ←
 * components ← features ← app. Features never import each other (the app composes them);
 * the engine is headless (no React, no Dexie, no DOM: the page and `npm run suite` share it);
 * service imports only contract; scripts and benches reach the console only through the engine.
 */
const FEATURES = ['connection', 'schemas', 'runs', 'history', 'conversations', 'suites', 'tools', 'insight'];
const elements = [
  { type: 'contract', pattern: 'src/contract' },
  { type: 'service', pattern: 'src/service' },
  { type: 'lib', pattern: 'src/lib' },
  { type: 'engine', pattern: 'src/engine' },
  { type: 'db', pattern: 'src/db' },
  { type: 'hooks', pattern: 'src/hooks' },
  { type: 'components', pattern: 'src/components' },
  ...FEATURES.map((f) => ({ type: `feature-${f}`, pattern: `src/features/${f}` })),
  { type: 'app', pattern: 'src/app' },
  { type: 'test-support', pattern: 'src/test-support' },
  { type: 'scripts', pattern: 'scripts' },
  { type: 'bench', pattern: 'bench' },
];
const allowTo = (...types) => ({ to: { element: { types: { anyOf: types } } } });
const BELOW_FEATURES = ['components', 'hooks', 'db', 'engine', 'lib', 'contract'];
const policies = [
  // Packages and Node's modules are not the project's layers.
  { allow: { to: [{ module: { origin: 'external' } }, { module: { origin: 'core' } }] } },
  // Tests of any layer may use the test support, which imports no layer.
  { allow: allowTo('test-support') },
  { from: { element: { type: 'test-support' } }, disallow: { to: { element: { types: { anyOf: elements.map((e) => e.type) } } } } },
  { from: { element: { type: 'contract' } }, allow: allowTo('contract') },
  { from: { element: { type: 'service' } }, allow: allowTo('service', 'contract') },
  { from: { element: { type: 'lib' } }, allow: allowTo('lib', 'contract') },
  { from: { element: { type: 'engine' } }, allow: allowTo('engine', 'lib', 'contract') },
  { from: { element: { type: 'db' } }, allow: allowTo('db', 'engine', 'lib', 'contract') },
  { from: { element: { type: 'hooks' } }, allow: allowTo('hooks', 'db', 'engine', 'lib', 'contract') },
  { from: { element: { type: 'components' } }, allow: allowTo('components', 'engine', 'lib', 'contract') },
  ...FEATURES.map((f) => ({ from: { element: { type: `feature-${f}` } }, allow: allowTo(`feature-${f}`, ...BELOW_FEATURES) })),
  { from: { element: { type: 'app' } }, allow: allowTo('app', ...FEATURES.map((f) => `feature-${f}`), ...BELOW_FEATURES) },
  { from: { element: { type: 'scripts' } }, allow: allowTo('scripts', 'service', 'engine', 'lib', 'contract') },
  { from: { element: { type: 'bench' } }, allow: allowTo('bench', 'scripts', 'service', 'engine', 'lib', 'contract') },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.reports/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'scripts/**/*.{ts,mjs}', 'bench/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
    },
    rules: { 'boundaries/dependencies': ['error', { default: 'disallow', policies }] },
  },
  {
    // A test of any layer may start a real reference service to talk to (service/test-http.ts).
    files: ['src/**/*.test.{ts,tsx}'],
    rules: { 'boundaries/dependencies': ['error', { default: 'disallow', policies: [...policies, { allow: allowTo('service') }] }] },
  },
  {
    // vite.config.ts reaches the service only through its plugin.
    files: ['vite.config.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./src/(?!service/vite-plugin\\.ts$)', message: 'vite.config.ts reaches the service only through its plugin.' }] }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/service/**'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, '@tanstack/query': pluginQuery },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@tanstack/query/exhaustive-deps': 'error',
      '@tanstack/query/no-rest-destructuring': 'error',
      '@tanstack/query/stable-query-client': 'error',
      '@tanstack/query/prefer-query-options': 'error',
      // Views never call fetch: requests go through lib/api-client and lib/sse.
      'no-restricted-globals': ['error', { name: 'fetch', message: 'Use lib/api-client (or lib/sse for streams).' }],
      'no-restricted-imports': [
        'error',
        { paths: [{ name: '@microsoft/fetch-event-source', message: 'Only lib/sse imports fetch-event-source.' }] },
      ],
    },
  },
  {
    files: ['src/lib/**/*.ts'],
    rules: { 'no-restricted-globals': 'off' },
  },
  {
    // Component tests ask the reference service directly what it saw.
    files: ['src/**/*.test.{ts,tsx}', 'src/test-support/**'],
    rules: { 'no-restricted-globals': 'off' },
  },
  {
    files: ['src/lib/sse.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // What blocks the page's thread without using it (a dialog, a synchronous request): the hostile
    // tests hold the page's longest task in CPU time, which such a wait would not show.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/service/**', 'src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name=/^(alert|confirm|prompt)$/]", message: 'A dialog blocks the page: ask in the page (an inline confirmation).' },
        { selector: "CallExpression[callee.property.name=/^(alert|confirm|prompt)$/][callee.object.name=/^(window|globalThis|self)$/]", message: 'A dialog blocks the page: ask in the page (an inline confirmation).' },
        { selector: "NewExpression[callee.name='XMLHttpRequest']", message: 'Requests go through lib/api-client, never synchronously.' },
      ],
    },
  },
);
