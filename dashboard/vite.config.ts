import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The API client is compiled from its sources (clients/typescript/src), so the
// dashboard always matches the protos of this checkout and needs no client
// build. Its dependencies resolve from this package's node_modules (dedupe).
const clientSrc = fileURLToPath(new URL("../clients/typescript/src/index.ts", import.meta.url));
// `make dashboard` / `npm run dev` talk to a server here (the Vite dev server proxies to it).
const apiTarget = process.env.CREATIVEOPS_URL ?? "http://127.0.0.1:8080";

export default defineConfig({
  base: "/dashboard/",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  resolve: {
    alias: { "@creativeops/client": clientSrc },
    dedupe: ["@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web", "preact"],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The CSP allows no inline script: no inline module-preload polyfill.
    modulePreload: { polyfill: false },
    // No inline data: URLs for scripts or fonts; images may be data: (CSP img-src).
    assetsInlineLimit: 0,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: {
      "/dashboard/api": apiTarget,
      "/v1": apiTarget,
      "^/creativeops\\.v1\\..*": apiTarget,
    },
  },
});
