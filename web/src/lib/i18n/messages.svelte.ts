/**
 * Feedlab's own strings on the participant pages, in the participant's language (docs/languages.md).
 * Each catalogue is src/participant/messages/<lang>.json, compiled at build time (vite.messages.ts) into
 * one function per message. English is bundled as the default; any other catalogue is its own chunk,
 * loaded once a page knows the language, so a page holds one language's strings.
 */
import type english from "../../participant/messages/en.json";
import en from "../../participant/messages/en.json?messages";
import { directionOf, matchLanguage } from "./languages.ts";

/** A message of the catalogues: English has every one, and the parity test holds the others to it. */
export type MessageKey = keyof typeof english;
/** A message's arguments: its ICU placeholders, plural counts and numbers. */
export type MessageParams = Readonly<Record<string, string | number>>;
type Catalogue = Readonly<Record<string, (params?: MessageParams) => string>>;

const loaders = import.meta.glob<Catalogue>(["../../participant/messages/*.json", "!**/en.json"], {
  query: "?messages",
  import: "default",
});
/** The other catalogues by language tag (the file name). */
const LOADERS = new Map(
  Object.entries(loaders).map(([file, load]) => [
    file.slice(file.lastIndexOf("/") + 1, -".json".length),
    load,
  ]),
);

/** The languages Feedlab's participant pages are written in. */
const CATALOGUE_LANGUAGES: readonly string[] = ["en", ...LOADERS.keys()];

/**
 * The participant's language and the catalogue that serves it. Runes state, so Svelte markup that calls
 * `t` re-renders on a change; Preact layouts hear of it through `subscribe` (the layout host renders
 * them again, `useLanguage` re-renders its component).
 */
class ParticipantLanguage {
  /** The participant's language (BCP 47): the page's `lang`, what `useLanguage` returns. */
  tag = $state("en");
  /** The catalogue's language: Feedlab's strings and its number and date formats are in it. */
  locale = $state("en");
  /** The languages the participant may switch between (the study's, when it allows switching; else none). */
  choices = $state.raw<readonly string[]>([]);
  #catalogue = $state.raw<Catalogue>(en);
  #listeners = new Set<() => void>();
  #latest: object = {};

  t(key: MessageKey, params?: MessageParams): string {
    return (this.#catalogue[key] ?? en[key])?.(params) ?? key;
  }

  /**
   * Makes `tag` the page's language: loads the catalogue that serves it (English when none does),
   * then sets the document's `lang` and `dir`. Of calls that overlap, the last one wins.
   */
  async use(tag: string): Promise<void> {
    const token = {};
    this.#latest = token;
    const locale = matchLanguage([tag], CATALOGUE_LANGUAGES) ?? "en";
    const load = LOADERS.get(locale);
    let catalogue: Catalogue = en;
    try {
      if (load) catalogue = await load();
    } catch (error) {
      // A chunk that cannot be fetched leaves the page in English rather than without a page.
      console.error(`feedlab: the ${locale} messages could not be loaded`, error);
    }
    if (this.#latest !== token) return;
    const changed = tag !== this.tag || catalogue !== this.#catalogue;
    this.tag = tag;
    this.locale = catalogue === en ? "en" : locale;
    this.#catalogue = catalogue;
    if (typeof document !== "undefined") {
      document.documentElement.lang = tag;
      document.documentElement.dir = directionOf(tag);
    }
    if (changed) for (const listener of this.#listeners) listener();
  }

  /**
   * For a visitor the server does not know yet: the join link's `lang` if a catalogue serves it, else the
   * browser's first preferred language one serves, else English.
   */
  useVisitorLanguage(linkLanguage?: string | null): Promise<void> {
    const wanted = linkLanguage ? [linkLanguage, ...navigator.languages] : navigator.languages;
    return this.use(matchLanguage(wanted, CATALOGUE_LANGUAGES) ?? "en");
  }

  /** Calls `listener` after each change of language; returns the function that stops it. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export const participantLanguage = new ParticipantLanguage();

/** Feedlab's message `key` in the participant's language, with `params` for its placeholders. */
export function t(key: MessageKey, params?: MessageParams): string {
  return participantLanguage.t(key, params);
}
