import { type Static, Type } from "@sinclair/typebox";

/**
 * The languages a study runs in (api.md "Participant languages", docs/languages.md): BCP 47 tags,
 * kept as the researcher wrote them once canonical (`de`, `pt-BR`, `zh-Hans`).
 */

/** The language of a study that does not say (api.md: `languages` defaults to `["en"]`). */
export const DEFAULT_LANGUAGE = "en";

/** Languages a study may list. */
export const MAX_LANGUAGES = 20;

/** The shape of a BCP 47 tag, checked before `canonicalLanguage` decides. */
export const LANGUAGE_TAG_PATTERN = "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$";

export const LanguageTag = Type.String({
  minLength: 2,
  maxLength: 35,
  pattern: LANGUAGE_TAG_PATTERN,
  description: "A BCP 47 language tag: `en`, `de`, `pt-BR`, `zh-Hans`",
});
export type LanguageTag = Static<typeof LanguageTag>;

export const Languages = Type.Array(LanguageTag, {
  minItems: 1,
  maxItems: MAX_LANGUAGES,
  uniqueItems: true,
  description:
    "The languages the study runs in (BCP 47 tags), each participant's chosen from the join link's `lang`, else their browser's preferred languages, else `default_language`",
});

/**
 * The canonical form of a tag (`DE-at` -> `de-AT`), or null for one that is not well-formed BCP 47
 * (`Intl.getCanonicalLocales` decides, in the server and in browsers alike).
 */
export function canonicalLanguage(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The language and script of a tag, with its likely script filled in (`de-AT` -> `de-Latn`, `zh-TW`
 * -> `zh-Hant`, `zh-CN` -> `zh-Hans`): two tags that share it are read the same way.
 */
function readAs(tag: string): string | null {
  try {
    const l = new Intl.Locale(tag).maximize();
    return `${l.language}-${l.script ?? ""}`;
  } catch {
    return null;
  }
}

/**
 * The study language that serves a requested tag: the same tag (ignoring case), else one read the
 * same way (`de-AT` -> `de`, `zh-CN` -> `zh-Hans`; never `zh-TW` -> `zh-Hans`), else null.
 */
export function languageFor(requested: string, languages: readonly string[]): string | null {
  const wanted = requested.toLowerCase();
  const exact = languages.find((l) => l.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  const key = readAs(requested);
  return key === null ? null : (languages.find((l) => readAs(l) === key) ?? null);
}

/**
 * A participant's language (api.md "Participant languages"): the first of `requested` (the join link's
 * `lang`, then the browser's preferred languages, best first) that one of the study's languages serves,
 * else the study's default.
 */
export function chooseLanguage(
  requested: readonly string[],
  languages: readonly string[],
  defaultLanguage: string,
): string {
  for (const r of requested) {
    const l = languageFor(r, languages);
    if (l !== null) return l;
  }
  return defaultLanguage;
}
