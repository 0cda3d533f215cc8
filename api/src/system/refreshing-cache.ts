interface Entry<V> {
  value?: V;
  at: number;
  loading?: Promise<V>;
}

/**
 * A cache for values that may be a little old but must come fast: a value older than `refreshMs` is
 * still answered at once while a fresh one loads in the background (stale-while-revalidate); only a
 * key never loaded waits, and concurrent callers share one load. Loads are batched: `getMany` loads
 * all its missing keys with one call of `loadMany` (one database round trip). At most `max` keys are
 * kept (least recently loaded go first). In-process only.
 */
export class RefreshingCache<V> {
  readonly #loadMany: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>;
  readonly #fallback: V;
  readonly #refreshMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry<V>>();

  /** `fallback` is the value of a key `loadMany` leaves out (say, a video without co-views). */
  constructor(
    loadMany: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
    options: { fallback: V; refreshMs: number; max: number; now?: () => number },
  ) {
    this.#loadMany = loadMany;
    this.#fallback = options.fallback;
    this.#refreshMs = options.refreshMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
  }

  get(key: string): Promise<V> {
    return this.getMany([key]).then((values) => values[0] as V);
  }

  /** The values of `keys`, in order. */
  getMany(keys: readonly string[]): Promise<V[]> {
    const entries: Entry<V>[] = [];
    const missing = new Map<string, Entry<V>>();
    const stale = new Map<string, Entry<V>>();
    for (const key of keys) {
      let entry = this.#entries.get(key);
      if (!entry) {
        entry = { at: 0 };
        this.#entries.set(key, entry);
        this.#evict();
      }
      entries.push(entry);
      if (entry.loading) continue;
      if (entry.value === undefined) missing.set(key, entry);
      else if (this.#now() - entry.at > this.#refreshMs) stale.set(key, entry);
    }
    if (stale.size > 0) this.#start([...stale]).catch(() => {});
    if (missing.size > 0) this.#start([...missing]).catch(() => {});
    // Entries with a value answer it (even while a refresh runs); the others wait for their load.
    return Promise.all(entries.map((e) => (e.value !== undefined ? e.value : (e.loading as Promise<V>))));
  }

  #start(batch: readonly [string, Entry<V>][]): Promise<Map<string, V>> {
    const all = this.#loadMany(batch.map(([key]) => key)).then(
      (values) => {
        const out = new Map<string, V>();
        const at = this.#now();
        for (const [key, entry] of batch) {
          const value = values.get(key) ?? this.#fallback;
          out.set(key, value);
          entry.value = value;
          entry.at = at;
          entry.loading = undefined;
          // Loaded keys move to the back of the eviction order.
          if (this.#entries.get(key) === entry) {
            this.#entries.delete(key);
            this.#entries.set(key, entry);
          }
        }
        return out;
      },
      (err) => {
        for (const [, entry] of batch) entry.loading = undefined;
        throw err;
      },
    );
    for (const [key, entry] of batch) entry.loading = all.then((m) => m.get(key) as V);
    // The per-key promises are awaited by callers only; keep a rejection from going unhandled.
    for (const [, entry] of batch) entry.loading?.catch(() => {});
    return all;
  }

  #evict(): void {
    while (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
