import path from "node:path";

/** The checkout or image this process runs from. */
export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
/** The built console and participant pages (`npm run build` in web/). */
export const WEB_BUILD_DIR = path.join(REPO_ROOT, "web", "build");
