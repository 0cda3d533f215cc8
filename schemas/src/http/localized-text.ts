import { type TString, Type } from "@sinclair/typebox";
import { canonicalLanguage, LANGUAGE_TAG_PATTERN, MAX_LANGUAGES } from "./languages.ts";

/**
 * A researcher's text in one or several languages (api.md "Participant languages"): the consent text,
 * a survey's name, a question's and an option's text take a string or an object `{<tag>: text}`.
 *
 * A plain string is the text in the study's default language. Participants receive the text resolved
 * for their language (`textIn`), never the object; a study lacking a language it lists is not ready to
 * start (`missingLanguages`).
 */
export type LocalizedText = string | { readonly [tag: string]: string };

/** The schema of a localized text field whose every text is a `text` (a string schema). */
export function LocalizedTextOf<T extends TString>(text: T, description: string) {
  return Type.Union(
    [
      text,
      Type.Record(Type.String({ pattern: LANGUAGE_TAG_PATTERN }), text, {
        minProperties: 1,
        maxProperties: MAX_LANGUAGES,
        description: 'One text per language, keyed by BCP 47 tag: {"en": "…", "de": "…"}',
      }),
    ],
    { description: `${description} A string, or one text per language ({"en": "…", "de": "…"}).` },
  );
}

/**
 * The text a participant in `language` reads: theirs, else the default language's, else the first
 * given (a text the study's languages no longer cover; readiness refuses to start such a study).
 */
export function textIn(text: LocalizedText, language: string, defaultLanguage: string): string {
  if (typeof text === "string") return text;
  return text[language] ?? text[defaultLanguage] ?? Object.values(text)[0] ?? "";
}

/** The text a researcher reads (lists, exports, audit): the default language's. */
export const defaultText = (text: LocalizedText, defaultLanguage: string): string =>
  textIn(text, defaultLanguage, defaultLanguage);

/** The languages of a study a text has no version in: a plain string covers the default alone. */
export function missingLanguages(
  text: LocalizedText,
  languages: readonly string[],
  defaultLanguage: string,
): string[] {
  if (typeof text === "string") return languages.filter((l) => l !== defaultLanguage);
  return languages.filter((l) => text[l] === undefined || text[l].trim() === "");
}

/** Every version of a text, for checks that hold for each (blank, NUL). */
export const versionsOf = (text: LocalizedText): string[] =>
  typeof text === "string" ? [text] : Object.values(text);

/**
 * A text with its language tags in canonical form (`DE` -> `de`), so they match the study's; or the
 * first tag that is not BCP 47, or names a language a second time.
 */
export function canonicalText(
  text: LocalizedText,
): { readonly text: LocalizedText } | { readonly invalidTag: string } {
  if (typeof text === "string") return { text };
  const out: Record<string, string> = {};
  for (const [tag, version] of Object.entries(text)) {
    const canonical = canonicalLanguage(tag);
    if (canonical === null || canonical in out) return { invalidTag: tag };
    out[canonical] = version;
  }
  return { text: out };
}
