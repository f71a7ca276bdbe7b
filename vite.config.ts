import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pageSecurity, referenceService, specLensValidators } from './src/service/vite-plugin.ts';

export default defineConfig({
  plugins: [react(), referenceService(), pageSecurity(), specLensValidators()],
  // cors: false, because Vite's default lets any localhost origin call the mounted API;
  // the service applies its own policy, none unless --cors-origin is given.
  server: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
  preview: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
  // The spec lens's validators (a virtual module) import Ajv's format checks, a CommonJS file the
  // dev server's first scan cannot see: pre-bundled up front, not on first use with a page reload.
  optimizeDeps: { include: ['ajv-formats/dist/formats'] },
  build: { target: 'es2022', sourcemap: true, manifest: true },
});
