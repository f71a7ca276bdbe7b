// @ts-check
import js from '@eslint/js';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The import rules of DESIGN.md, as zones: files in `target` may not import from `from`. */
const layerZones = [
  // contract imports nothing of the project
  { target: './src/contract', from: './src', except: ['./contract'], message: 'contract/ imports nothing of the project.' },
  // service imports only contract and Node
  { target: './src/service', from: './src', except: ['./service', './contract'], message: 'service/ imports only contract/ and Node.' },
  // browser code never imports the service
  { target: ['./src/app', './src/features', './src/components', './src/lib', './src/main.tsx'], from: './src/service', message: 'Browser code never imports the service.' },
  // lib and components sit below features and app
  { target: ['./src/lib', './src/components'], from: ['./src/features', './src/app'], message: 'lib/ and components/ sit below features/ and app/.' },
  { target: './src/lib', from: './src/components', message: 'lib/ has no React components.' },
  // features do not import each other
  { target: './src/features/connection', from: ['./src/features/schemas', './src/features/agent-runs'], message: 'Features do not import each other; move shared code to lib/ or contract/.' },
  { target: './src/features/schemas', from: ['./src/features/connection', './src/features/agent-runs'], message: 'Features do not import each other; move shared code to lib/ or contract/.' },
  { target: './src/features/agent-runs', from: ['./src/features/connection', './src/features/schemas'], message: 'Features do not import each other; move shared code to lib/ or contract/.' },
  // vite.config.ts reaches the service only through its plugin
  { target: './vite.config.ts', from: './src/service', except: ['./vite-plugin.ts'], message: 'vite.config.ts reaches the service only through its plugin.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.reports/**', '.data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })],
    },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
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
    files: ['src/lib/sse.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
);
