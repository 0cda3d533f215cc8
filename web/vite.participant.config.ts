import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { defineConfig, type Plugin } from "vite";
import { participantMessages } from "./vite.messages.ts";
import { platformAliases, platformJsx } from "./vite.shared.ts";

const local = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const OUT_DIR = local("./build");

/** Files worth compressing (the SvelteKit adapter compresses the same kinds). */
const COMPRESSIBLE = /\.(html|js|mjs|css|json|svg|xml|txt)$/;

/**
 * Writes .br and .gz copies beside each emitted file, as the SvelteKit adapter does with `precompress`
 * (api/src/http/static.ts serves them to browsers that accept them).
 */
function precompress(): Plugin {
  const brotli = promisify(brotliCompress);
  const gz = promisify(gzip);
  return {
    name: "feedlab-precompress",
    apply: "build",
    async writeBundle(options, bundle) {
      const dir = options.dir ?? OUT_DIR;
      await Promise.all(
        Object.keys(bundle)
          .filter((file) => COMPRESSIBLE.test(file))
          .map(async (file) => {
            const full = path.join(dir, file);
            const body = await readFile(full);
            const [br, gzipped] = await Promise.all([
              brotli(body, {
                params: {
                  [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
                },
              }),
              gz(body, { level: constants.Z_BEST_COMPRESSION }),
            ]);
            await Promise.all([writeFile(`${full}.br`, br), writeFile(`${full}.gz`, gzipped)]);
          }),
      );
    },
  };
}

/**
 * The participant shell (src/participant): the feed and watch pages as a plain Svelte app, built after
 * the SvelteKit app into the same folder (`npm run build` runs both). Its page is build/participant.html;
 * its content-hashed files go under _app/immutable/, which the API caches for a year.
 */
export default defineConfig({
  root: local("./src/participant"),
  publicDir: false,
  plugins: [participantMessages(), svelte({ configFile: false }), precompress()],
  resolve: { alias: platformAliases },
  oxc: platformJsx,
  build: {
    outDir: OUT_DIR,
    // The SvelteKit build has just filled the folder.
    emptyOutDir: false,
    assetsDir: "_app/immutable/participant",
    // The layout preview's document (sandboxed in the console's editor) shares the participant runtime.
    rolldownOptions: {
      input: [local("./src/participant/participant.html"), local("./src/participant/layout-preview.html")],
    },
  },
});
