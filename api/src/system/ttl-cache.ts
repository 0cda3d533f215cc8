/**
 * A small time-bounded cache for hot lookups on request paths. Entries expire after `ttlMs`, or the
 * life `ttlOf` gives their value; the oldest entries go first when `max` is reached. In-process only:
 * other processes see a change when their entry expires, so an entry's life is the longest a stale
 * value may serve.
 *
 * `fetch` also refreshes ahead: an entry past half its life is answered and read again in the
 * background, so a key in steady use never makes a request wait for its lookup, and no value is ever
 * served past its life.
 */
export class TtlCache<V> {
  readonly #ttlMs: number;
  readonly #ttlOf: ((value: V) => number) | undefined;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: V; expires: number; ttl: number }>();
  readonly #refreshing = new Set<string>();
  /** Bumped by delete and clear: a lookup begun before one is not stored. */
  #generation = 0;

  /** `ttlOf`: a value's own life, where some values may be kept longer than others (default `ttlMs`). */
  constructor(options: { ttlMs: number; max: number; now?: () => number; ttlOf?: (value: V) => number }) {
    this.#ttlMs = options.ttlMs;
    this.#ttlOf = options.ttlOf;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    const ttl = this.#ttlOf?.(value) ?? this.#ttlMs;
    this.#entries.set(key, { value, expires: this.#now() + ttl, ttl });
  }

  /**
   * The cached value, or `load`'s (stored unless `load` answers undefined, which removes the key). A
   * value past half its life is answered while `load` reads it again in the background.
   */
  async fetch(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const e = this.#entries.get(key);
    const now = this.#now();
    if (e && e.expires > now) {
      if (e.expires - now < e.ttl / 2 && !this.#refreshing.has(key)) {
        this.#refreshing.add(key);
        this.#load(key, load)
          .catch(() => {})
          .finally(() => this.#refreshing.delete(key));
      }
      return e.value;
    }
    return this.#load(key, load);
  }

  async #load(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const generation = this.#generation;
    const value = await load();
    if (generation === this.#generation) {
      if (value === undefined) this.#entries.delete(key);
      else this.set(key, value);
    }
    return value;
  }

  delete(key: string): void {
    this.#entries.delete(key);
    this.#generation++;
  }

  clear(): void {
    this.#entries.clear();
    this.#generation++;
  }
}
