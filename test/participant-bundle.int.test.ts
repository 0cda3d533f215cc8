import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The participant app's build (`npm test` builds it first, scripts/ensure.sh). */
const DIR = path.resolve(import.meta.dirname, "../web/build/_app/immutable/participant");

/**
 * Code a participant's page must never download: the console's, the TSX compiler, and the schema
 * builders (TypeBox), which a participant module brings in by importing any value from a schemas
 * module that builds a schema at its top level (as `events/wire.ts` does; `events/stamp.ts` is the
 * tracker's). The participant-page benchmark measures the size; this keeps the cause out.
 */
const FOREIGN: Record<string, string> = {
  "TypeBox.Kind": "TypeBox's schema builders",
  "Create experiment": "the console",
  "Save pool": "the console",
  esbuild: "the TSX compiler",
};

describe("the participant app's JavaScript", () => {
  it("carries no console code, no compiler and no schema builders", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith(".js"));
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((f) => {
      const text = readFileSync(path.join(DIR, f), "utf8");
      return Object.entries(FOREIGN)
        .filter(([marker]) => text.includes(marker))
        .map(([, what]) => `${f}: ${what}`);
    });
    expect(found).toEqual([]);
  });
});
