import { parse, type Token } from "@messageformat/parser";
import { describe, expect, it } from "vitest";

/** Every catalogue as written (the raw JSON, not the compiled module). */
const catalogues = Object.fromEntries(
  Object.entries(
    import.meta.glob<Record<string, string>>("./*.json", { eager: true, import: "default" }),
  ).map(([file, messages]) => [file.slice(2, -".json".length), messages]),
);
const english = catalogues.en ?? {};
const others = Object.keys(catalogues).filter((lang) => lang !== "en");

/** The arguments a message takes (placeholders, plural counts, numbers), with what each one is. */
function argumentsOf(tokens: readonly Token[], found = new Set<string>()): Set<string> {
  for (const token of tokens) {
    if (token.type === "argument") found.add(`${token.arg}`);
    else if (token.type === "function") found.add(`${token.arg}:${token.key}`);
    else if (token.type === "plural" || token.type === "select" || token.type === "selectordinal") {
      found.add(`${token.arg}:${token.type}`);
      for (const c of token.cases) argumentsOf(c.tokens, found);
    }
  }
  return found;
}

/** A message's arguments, parsed with the plural categories its language has (others are refused). */
function argumentsIn(lang: string, message: string): string[] {
  const cardinal = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
  return [...argumentsOf(parse(message, { cardinal, strict: false }))].sort();
}

describe("the participant message catalogues", () => {
  it("include English and the languages docs/languages.md lists", () => {
    expect(Object.keys(catalogues).sort()).toEqual(["ar", "de", "en", "es", "fr", "nl", "zh-Hans"]);
  });

  it.each(others)("%s has exactly the keys English has", (lang) => {
    const keys = Object.keys(catalogues[lang] ?? {});
    expect(
      keys.filter((key) => !(key in english)),
      "keys English lacks",
    ).toEqual([]);
    expect(
      Object.keys(english).filter((key) => !keys.includes(key)),
      "keys missing",
    ).toEqual([]);
  });

  it.each(Object.keys(catalogues))("%s uses the arguments English uses, message by message", (lang) => {
    const messages = catalogues[lang] ?? {};
    const differing = Object.entries(english)
      .filter(([key]) => key in messages)
      .filter(([key, source]) => {
        const found = argumentsIn(lang, messages[key] ?? "");
        const wanted = argumentsIn("en", source);
        // A language without plural forms may count with a plain number where English needs a plural.
        const plain = (names: string[]) => names.map((name) => name.replace(/:(plural|number)$/, ""));
        return JSON.stringify(plain(found)) !== JSON.stringify(plain(wanted));
      })
      .map(([key]) => key);
    expect(differing).toEqual([]);
  });
});
