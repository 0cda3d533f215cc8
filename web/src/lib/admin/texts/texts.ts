/**
 * A researcher's text in the console's forms (api.md "Participant languages"): one version per
 * language the study runs in, edited side by side, and sent as the API takes it.
 */
import type { LocalizedText } from "@feedlab/schemas/http/localized-text.ts";

/** The versions of a text being edited, by language tag; a language without one is absent or "". */
export type Texts = Readonly<Record<string, string>>;

/** The versions of a stored text: a plain string is the default language's. */
export const textsOf = (text: LocalizedText | null | undefined, defaultLanguage: string): Texts =>
  text === null || text === undefined
    ? {}
    : typeof text === "string"
      ? { [defaultLanguage]: text }
      : { ...text };

/**
 * A text as the API takes it: a plain string when only the default language has one (every
 * single-language study's texts stay strings), else one text per language that has one.
 */
export function sentText(texts: Texts, defaultLanguage: string): LocalizedText {
  const written = Object.entries(texts).filter(([, v]) => v.trim() !== "");
  if (written.every(([tag]) => tag === defaultLanguage)) return texts[defaultLanguage] ?? "";
  return Object.fromEntries(written);
}

/** The study's languages a text has no version in yet: each is marked "Missing translation". */
export const missingIn = (texts: Texts, languages: readonly string[]): string[] =>
  languages.filter((l) => (texts[l] ?? "").trim() === "");

/** A language as the console names it: "German (de)". */
export function languageLabel(tag: string): string {
  try {
    const name = new Intl.DisplayNames(["en"], { type: "language" }).of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
}
