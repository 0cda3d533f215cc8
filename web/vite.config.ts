/// <reference types="vitest/config" />
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import adapter from "@sveltejs/adapter-static";
import { sveltekit } from "@sveltejs/kit/vite";
import { defineConfig, type Plugin, type ProxyOptions } from "vite";
import { participantMessages } from "./vite.messages.ts";
import { PARTICIPANT_PAGE, platformAliases, platformJsx } from "./vite.shared.ts";

/** The Feedlab API server that `vite dev` forwards API, feed, session and media requests to. */
const API_ORIGIN = "http://127.0.0.1:8080";

/**
 * Paths served by the API rather than by this app (api.md): the JSON API and its docs, the participant
 * feed and session endpoints, and media files. Matched as path prefixes at a segment boundary.
 */
const API_PATHS = ["/api", "/feed", "/sessions", "/media", "/healthz", "/readyz", "/metrics"];

/**
 * The API refuses a change sent by a page of another origin (api.md "Trust boundaries"); the pages this
 * dev server serves are the API's own, so their Origin is passed on as the API's. Other origins pass
 * unchanged, and are refused.
 */
const proxyOptions: ProxyOptions = {
  target: API_ORIGIN,
  changeOrigin: false,
  configure: (server) => {
    server.on("proxyReq", (proxyReq, req) => {
      if (req.headers.origin === `http://${req.headers.host}`) proxyReq.setHeader("origin", API_ORIGIN);
    });
  },
};

const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  API_PATHS.map((path) => [`^${path}(?:/|\\?|$)`, proxyOptions]),
);

/**
 * `vite dev` serves the participant shell (src/participant, built on its own by
 * vite.participant.config.ts) for the participant pages, as the API does with the build; its modules go
 * through this dev server like the SvelteKit app's.
 */
function participantShellInDev(): Plugin {
  const page = fileURLToPath(new URL("./src/participant/participant.html", import.meta.url));
  return {
    name: "feedlab-participant-shell-dev",
    apply: "serve",
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        const url = new URL(req.url ?? "/", "http://localhost");
        if (req.method !== "GET" || !PARTICIPANT_PAGE.test(url.pathname)) return next();
        try {
          const html = (await readFile(page, "utf8")).replace(
            'src="./main.ts"',
            'src="/src/participant/main.ts"',
          );
          res.setHeader("Content-Type", "text/html");
          res.end(await server.transformIndexHtml(url.pathname, html));
        } catch (error) {
          next(error);
        }
      });
    },
  };
}

export default defineConfig({
  plugins: [
    participantMessages(),
    participantShellInDev(),
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
  oxc: platformJsx,
  server: { proxy },
  preview: { proxy },
  // Unit tests read Feedlab's strings in English, as the console does (hooks.client.ts).
  // testTimeout: these run beside the lint, the type check and the unit tests (scripts/test-suite.mjs),
  // where a layout's compile takes 2 s of vitest's default 5.
  test: { setupFiles: ["./src/lib/i18n/english.test-setup.ts"], testTimeout: 15_000 },
});
