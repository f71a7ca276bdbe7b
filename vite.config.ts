import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pageSecurity, referenceService, specLensValidators } from './src/service/vite-plugin.ts';

export default defineConfig({
  plugins: [react(), referenceService(), pageSecurity(), specLensValidators()],
  // cors: false, because Vite's default lets any localhost origin call the mounted API;
  // the service applies its own policy, none unless --cors-origin is given.
  server: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
  preview: { host: '127.0.0.1', port: 5173, strictPort: true, cors: false },
  build: { target: 'es2022', sourcemap: true, manifest: true },
});
