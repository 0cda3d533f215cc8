/**
 * A small time-bounded cache for hot lookups on request paths. Entries expire after `ttlMs`; the
 * oldest entries go first when `max` is reached. In-process only: other processes see a change
 * when their entry expires, so `ttlMs` is the longest a stale value may serve.
 */
export class TtlCache<V> {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(options: { ttlMs: number; max: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
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
    this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
