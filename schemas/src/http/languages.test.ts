import { describe, expect, it } from "vitest";
import { canonicalLanguage, chooseLanguage, languageFor } from "./languages.ts";

describe("participant languages", () => {
  it("serves a requested tag by the same tag, else by one read the same way, never by another script", () => {
    const study = ["en", "de", "zh-Hans", "pt-BR"];
    expect(languageFor("DE", study)).toBe("de");
    expect(languageFor("de-CH", study)).toBe("de");
    expect(languageFor("zh-CN", study)).toBe("zh-Hans");
    expect(languageFor("zh-SG", study)).toBe("zh-Hans");
    expect(languageFor("zh-TW", study)).toBeNull();
    expect(languageFor("pt", study)).toBe("pt-BR");
    expect(languageFor("fr", study)).toBeNull();
    expect(languageFor("not a tag", study)).toBeNull();
  });

  it("chooses the first requested language the study serves, else its default", () => {
    expect(chooseLanguage(["ja", "fr-FR", "de"], ["en", "de", "fr"], "en")).toBe("fr");
    expect(chooseLanguage(["ja", "ko"], ["en", "de"], "de")).toBe("de");
    expect(chooseLanguage([], ["en"], "en")).toBe("en");
  });

  it("writes tags in their canonical form and refuses what is not BCP 47", () => {
    expect(canonicalLanguage("DE-at")).toBe("de-AT");
    expect(canonicalLanguage("zh-hans")).toBe("zh-Hans");
    expect(canonicalLanguage("english!")).toBeNull();
  });
});
