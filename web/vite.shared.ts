/**
 * Build settings shared by the SvelteKit app (vite.config.ts) and the participant shell
 * (vite.participant.config.ts).
 */
import { fileURLToPath } from "node:url";

const local = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The participant platform namespace (docs/participant-runtime.md): layouts import `react` (Preact's
 * compat layer) and the platform modules by these names. Mirrored in tsconfig.json `paths`.
 */
export const platformAliases = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-dev-runtime" },
  { find: /^@feedlab\/data$/, replacement: local("./src/lib/platform/data.ts") },
  { find: /^@feedlab\/surfaces$/, replacement: local("./src/lib/platform/surfaces/index.ts") },
  { find: /^@feedlab\/blocks$/, replacement: local("./src/lib/platform/blocks/index.tsx") },
];

/** TSX (participant layouts and surfaces) compiles with Preact's automatic JSX runtime. */
export const platformJsx = { jsx: { runtime: "automatic", importSource: "preact" } } as const;

/** The participant shell's pages, `/` and `/watch/{id}` (api/src/http/static.ts serves it for the same). */
export const PARTICIPANT_PAGE = /^\/(?:watch\/[^/]+)?$/;
