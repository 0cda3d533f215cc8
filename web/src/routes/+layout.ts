import type { LayoutLoad } from "./$types";

// The app is a client-rendered SPA served from a static build with an index.html fallback: nothing is
// rendered on a server and no dynamic route is prerendered.
export const ssr = false;
export const prerender = false;

export const load = (() => ({})) satisfies LayoutLoad;
