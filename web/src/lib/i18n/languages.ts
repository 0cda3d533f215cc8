/**
 * Which of Feedlab's catalogues serves a language tag, and which way its text runs. Pure, so the
 * participant pages, the join page and their tests share one rule.
 */

/** Languages written right to left (the ones a study is likely to list). */
const RIGHT_TO_LEFT = new Set(["ar", "he", "fa", "ur"]);

/** A tag's language and script (`zh-CN` and `zh-Hans` are both `zh-Hans`); null when it cannot be read. */
function languageAndScript(tag: string): string | null {
  try {
    const locale = new Intl.Locale(tag).maximize();
    return `${locale.language}-${locale.script ?? ""}`;
  } catch {
    return null;
  }
}

/**
 * The first of `wanted` (most preferred first) that one of `available` serves, matched by language and
 * script as the server matches a participant's language (api.md, Participant languages): `de-AT` takes
 * `de`, `zh-CN` takes `zh-Hans`, `zh-TW` does not. Null when none does.
 */
export function matchLanguage(wanted: readonly string[], available: readonly string[]): string | null {
  const byKey = new Map<string, string>();
  for (const tag of available) {
    const key = languageAndScript(tag);
    if (key && !byKey.has(key)) byKey.set(key, tag);
  }
  for (const tag of wanted) {
    const found = byKey.get(languageAndScript(tag) ?? "");
    if (found) return found;
  }
  return null;
}

/** `rtl` for the languages written right to left, else `ltr`. */
export function directionOf(tag: string): "ltr" | "rtl" {
  try {
    return RIGHT_TO_LEFT.has(new Intl.Locale(tag).language) ? "rtl" : "ltr";
  } catch {
    return "ltr";
  }
}

/** A language's name in that language (`de` -> "Deutsch"), as a language menu lists it; the tag if unknown. */
export function ownName(tag: string): string {
  try {
    const name = new Intl.DisplayNames([tag], { type: "language" }).of(tag) ?? tag;
    return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
  } catch {
    return tag;
  }
}
