import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Vite build for Lantern's web UI. The root is this folder (`web/`, resolved from the config file so the
 * build works from any working directory); the output goes to `web/dist`, which the server serves at `/`.
 * In development `/api` is proxied to a locally running server on port 3000, which must answer to the dev
 * server's name: start it with `PUBLIC_HOSTS=localhost:5173` (a loopback name: no secret needed).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:3000',
    },
  },
});
