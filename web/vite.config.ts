import { fileURLToPath } from "node:url";
import adapter from "@sveltejs/adapter-static";
import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig, type ProxyOptions } from "vite";

/** The Feedlab API server that `vite dev` forwards API, feed, session and media requests to. */
const API_ORIGIN = "http://127.0.0.1:8080";

/**
 * Paths served by the API rather than by this app (api.md): the JSON API and its docs, the participant
 * feed and session endpoints, and media files. Matched as path prefixes at a segment boundary.
 */
const API_PATHS = ["/api", "/feed", "/sessions", "/media", "/healthz", "/readyz", "/metrics"];

const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  API_PATHS.map((path) => [`^${path}(?:/|\\?|$)`, { target: API_ORIGIN, changeOrigin: false }]),
);

const local = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The participant platform namespace (docs/participant-runtime.md): layouts import `react` (Preact's
 * compat layer) and the platform modules by these names. Mirrored in tsconfig.json `paths`.
 */
const platformAliases = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-dev-runtime" },
  { find: /^@feedlab\/data$/, replacement: local("./src/lib/platform/data.ts") },
  { find: /^@feedlab\/surfaces$/, replacement: local("./src/lib/platform/surfaces/index.ts") },
];

export default defineConfig({
  plugins: [
    sveltekit({
      // A single-page app: every route renders in the browser (ssr = false in the root layout), and the
      // API server answers unknown paths with the fallback page.
      // precompress: .br and .gz copies beside each file; the API serves them to browsers that accept them.
      adapter: adapter({
        pages: "build",
        assets: "build",
        fallback: "index.html",
        strict: true,
        precompress: true,
      }),
    }),
  ],
  resolve: { alias: platformAliases },
  // TSX (participant layouts and surfaces) compiles with Preact's automatic JSX runtime.
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  server: { proxy },
  preview: { proxy },
});
