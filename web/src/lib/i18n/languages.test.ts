import { describe, expect, it } from "vitest";
import { directionOf, matchLanguage, ownName } from "./languages.ts";

const AVAILABLE = ["en", "de", "fr", "es", "nl", "zh-Hans", "ar"];

describe("matchLanguage", () => {
  it("takes the first wanted tag a catalogue serves, by language and script", () => {
    expect(matchLanguage(["it", "de-AT", "fr"], AVAILABLE)).toBe("de");
    expect(matchLanguage(["zh-CN"], AVAILABLE)).toBe("zh-Hans");
    expect(matchLanguage(["en-GB"], AVAILABLE)).toBe("en");
  });

  it("is null when no catalogue has the language in that script", () => {
    expect(matchLanguage(["zh-TW", "ja"], AVAILABLE)).toBeNull();
    expect(matchLanguage(["not a tag"], AVAILABLE)).toBeNull();
  });
});

describe("directionOf", () => {
  it("is rtl for Arabic, Hebrew, Persian and Urdu, with or without a region", () => {
    expect(["ar", "he", "fa-IR", "ur"].map(directionOf)).toEqual(["rtl", "rtl", "rtl", "rtl"]);
    expect(["en", "zh-Hans", "de"].map(directionOf)).toEqual(["ltr", "ltr", "ltr"]);
  });
});

describe("ownName", () => {
  it("names a language in that language, capitalised as a menu item", () => {
    expect(ownName("de")).toBe("Deutsch");
    expect(ownName("fr")).toBe("Français");
    expect(ownName("ar")).toBe("العربية");
  });
});
