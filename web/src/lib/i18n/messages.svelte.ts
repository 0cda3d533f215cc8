/**
 * Feedlab's own strings on the participant pages, in the participant's language (docs/languages.md).
 * Each catalogue is src/participant/messages/<lang>.json, compiled at build time (vite.messages.ts) into
 * one function per message, and is a chunk of its own, loaded once a page knows the language: a
 * participant's page holds one language's strings, English included (issue 40: under 60 KB gzipped
 * with one language). The console, in English, bundles English instead (`provide`, hooks.client.ts).
 */
import type english from "../../participant/messages/en.json";
import { directionOf, matchLanguage } from "./languages.ts";

/** A message of the catalogues: English has every one, and the parity test holds the others to it. */
export type MessageKey = keyof typeof english;
/** A message's arguments: its ICU placeholders, plural counts and numbers. */
export type MessageParams = Readonly<Record<string, string | number>>;
type Catalogue = Readonly<Record<string, (params?: MessageParams) => string>>;

const loaders = import.meta.glob<Catalogue>("../../participant/messages/*.json", {
  query: "?messages",
  import: "default",
});
/** The catalogues by language tag (the file name). */
const LOADERS = new Map(
  Object.entries(loaders).map(([file, load]) => [
    file.slice(file.lastIndexOf("/") + 1, -".json".length),
    load,
  ]),
);

/** The languages Feedlab's participant pages are written in. */
const CATALOGUE_LANGUAGES: readonly string[] = [...LOADERS.keys()];

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
  /** None until the first language is in use: pages wait for it (`ready`) before they show. */
  #catalogue = $state.raw<Catalogue | null>(null);
  /** Catalogues in hand without a load: those an app bundles (`provide`), and those loaded. */
  #held = new Map<string, Catalogue>();
  #listeners = new Set<() => void>();
  #latest: object = {};
  #pending: Promise<void> | null = null;

  t(key: MessageKey, params?: MessageParams): string {
    return this.#catalogue?.[key]?.(params) ?? key;
  }

  /**
   * A catalogue the app bundles, in use at once when none is yet: the console (English, whose shared
   * dialogs and buttons speak through `t`) has its strings before its first render.
   */
  provide(locale: string, catalogue: Catalogue): void {
    this.#held.set(locale, catalogue);
    if (this.#catalogue === null) {
      this.#catalogue = catalogue;
      this.tag = locale;
      this.locale = locale;
    }
  }

  /** Settles once the language last asked for is in use (at once when one already is and none is loading). */
  ready(): Promise<void> {
    return this.#pending ?? (this.#catalogue === null ? this.useVisitorLanguage() : Promise.resolve());
  }

  /**
   * Makes `tag` the page's language: loads the catalogue that serves it (English when none does),
   * then sets the document's `lang` and `dir`. Of calls that overlap, the last one wins.
   */
  use(tag: string): Promise<void> {
    const pending = this.#use(tag);
    this.#pending = pending;
    void pending.finally(() => {
      if (this.#pending === pending) this.#pending = null;
    });
    return pending;
  }

  async #use(tag: string): Promise<void> {
    const token = {};
    this.#latest = token;
    let locale = matchLanguage([tag], CATALOGUE_LANGUAGES) ?? "en";
    let catalogue = await this.#load(locale);
    if (catalogue === null && locale !== "en") {
      // A chunk that cannot be fetched leaves the page in English rather than without a page.
      locale = "en";
      catalogue = await this.#load(locale);
    }
    if (this.#latest !== token || catalogue === null) return;
    const changed = tag !== this.tag || catalogue !== this.#catalogue;
    this.tag = tag;
    this.locale = locale;
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

  /** A language's catalogue: held, else loaded once; null when its chunk cannot be fetched. */
  async #load(locale: string): Promise<Catalogue | null> {
    const held = this.#held.get(locale);
    if (held) return held;
    try {
      const loaded = await LOADERS.get(locale)?.();
      if (loaded) this.#held.set(locale, loaded);
      return loaded ?? null;
    } catch (error) {
      console.error(`feedlab: the ${locale} messages could not be loaded`, error);
      return null;
    }
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
