/**
 * Feedlab's participant message catalogues (src/participant/messages/<lang>.json, ICU MessageFormat)
 * compiled at build time: an import of `<lang>.json?messages` becomes an ES module of one function per
 * message (`@messageformat/core`'s compileModule), so participants download the compiled functions and
 * the small `@messageformat/runtime` helpers, never a MessageFormat parser. Used by both Vite configs
 * (and so by vitest, which reads vite.config.ts).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import MessageFormat from "@messageformat/core";
import compileModule from "@messageformat/core/lib/compile-module.js";
import type { Plugin } from "vite";

const QUERY = "?messages";
/**
 * The compiled module's id: virtual (`\0`) and ending in `.js`, so no other plugin takes it for the
 * JSON file (Vite's JSON plugin would parse the compiled module).
 */
const PREFIX = "\0feedlab-messages:";
const SUFFIX = ".js";

export function participantMessages(): Plugin {
  return {
    name: "feedlab-participant-messages",
    enforce: "pre",
    resolveId(source, importer) {
      if (!source.endsWith(`.json${QUERY}`)) return null;
      const file = source.slice(0, -QUERY.length);
      const base = importer && !importer.startsWith("\0") ? path.dirname(importer) : process.cwd();
      return PREFIX + path.resolve(base, file) + SUFFIX;
    },
    async load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const file = id.slice(PREFIX.length, -SUFFIX.length);
      this.addWatchFile(file);
      const messages = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
      // The file name is the language: its plural rules and number formats. Keys are message ids,
      // never locale codes (localeCodeFromKey: null).
      const mf = new MessageFormat(path.basename(file, ".json"), { localeCodeFromKey: null });
      return compileModule(mf, messages);
    },
  };
}
