import { readFileSync } from "node:fs";
import { compileWith } from "@feedlab/schemas/ui/compile.ts";
import * as esbuild from "esbuild-wasm";
import { beforeAll, describe, expect, it } from "vitest";
import { starterSource } from "./starters.ts";

const file = (name: string) => readFileSync(new URL(`./${name}`, import.meta.url), "utf8");

describe("preset starters of the code track", () => {
  beforeAll(async () => {
    await esbuild.initialize({});
  });

  const cases = ["grid", "list"].flatMap((family) =>
    (["feed", "watch"] as const).flatMap((page) =>
      ["desktop", "tablet", "mobile"].map((device) => [family, page, device] as const),
    ),
  );

  it.each(cases)(
    "%s %s %s compiles with the server's compiler and keeps only platform imports",
    async (family, page, device) => {
      const source = starterSource(
        {
          shared: file("shared.tsx"),
          parts: file(`${family}-parts.tsx`),
          page: file(`${family}-${page}.tsx`),
        },
        `${family}-${device}`,
        page,
        device,
      );
      expect(source).not.toMatch(/from "\.\//);
      expect(source).toMatch(new RegExp(`export default variants\\.${device};\\n$`));
      const result = await compileWith(esbuild, source);
      expect(result).toMatchObject({ ok: true });
    },
  );
});
