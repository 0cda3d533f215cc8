import { describe, expect, it } from "vitest";
import { languageLabel, missingIn, sentText, textsOf } from "./texts.ts";

describe("a researcher's text in several languages", () => {
  it("reads a plain string as the default language's version", () => {
    expect(textsOf("Hello", "en")).toEqual({ en: "Hello" });
    expect(textsOf({ en: "Hello", de: "Hallo" }, "en")).toEqual({ en: "Hello", de: "Hallo" });
    expect(textsOf(null, "en")).toEqual({});
  });

  it("sends a plain string while only the default language has a version", () => {
    expect(sentText({ en: "Hello", de: "  " }, "en")).toBe("Hello");
    expect(sentText({}, "en")).toBe("");
  });

  it("sends one text per language that has one once another language is written", () => {
    expect(sentText({ en: "Hello", de: "Hallo", fr: "" }, "en")).toEqual({ en: "Hello", de: "Hallo" });
    expect(sentText({ de: "Hallo" }, "en")).toEqual({ de: "Hallo" });
  });

  it("names the study's languages a text lacks, blank versions included", () => {
    expect(missingIn({ en: "Hello", de: " " }, ["en", "de", "fr"])).toEqual(["de", "fr"]);
    expect(missingIn({ en: "Hello" }, ["en"])).toEqual([]);
  });

  it("names a language in English with its tag", () => {
    expect(languageLabel("de")).toBe("German (de)");
    expect(languageLabel("zh-Hans")).toMatch(/Chinese.*\(zh-Hans\)/);
  });
});
