interface Entry<V> {
  value?: V;
  at: number;
  loading?: Promise<V>;
}

/** A key waiting for a batch, with how to settle its entry's `loading`. */
interface Queued<V> {
  readonly key: string;
  readonly entry: Entry<V>;
  readonly settle: (value: V | Error) => void;
}

/**
 * A cache for values that may be a little old but must come fast: a value older than `refreshMs` is
 * still answered at once while a fresh one loads in the background (stale-while-revalidate); only a
 * key never loaded waits, and concurrent callers share one load. Loads are batched: the keys missing
 * in every call made until the event loop turns (several requests' worth) are loaded with one call
 * of `loadMany` (one database round trip); stale keys, whose callers do not wait, are gathered for
 * `refreshBatchMs` (or until `refreshBatchSize` of them) first. At most `max` keys are kept (least
 * recently loaded go first). In-process only.
 */
export class RefreshingCache<V> {
  readonly #loadMany: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>;
  readonly #fallback: V;
  readonly #refreshMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #equal: ((a: V, b: V) => boolean) | undefined;
  readonly #refreshBatchMs: number;
  readonly #refreshBatchSize: number;
  readonly #entries = new Map<string, Entry<V>>();
  /** Missing keys waiting for the next batch, with how to settle their entries' `loading`. */
  #queued: Queued<V>[] = [];
  /** Stale keys waiting for theirs. */
  #stale: Queued<V>[] = [];
  #staleTimer: NodeJS.Timeout | undefined;

  /**
   * `fallback` is the value of a key `loadMany` leaves out (say, a video without co-views). With
   * `equal`, a refresh that loads a value equal to the one held keeps the held one (the same object),
   * so what callers derived from it stays valid. Stale keys wait up to `refreshBatchMs` (default 0:
   * the next turn, like missing ones) for others, at most `refreshBatchSize` (default 500) a load.
   */
  constructor(
    loadMany: (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>,
    options: {
      fallback: V;
      refreshMs: number;
      max: number;
      now?: () => number;
      equal?: (a: V, b: V) => boolean;
      refreshBatchMs?: number;
      refreshBatchSize?: number;
    },
  ) {
    this.#loadMany = loadMany;
    this.#fallback = options.fallback;
    this.#refreshMs = options.refreshMs;
    this.#max = options.max;
    this.#now = options.now ?? Date.now;
    this.#equal = options.equal;
    this.#refreshBatchMs = options.refreshBatchMs ?? 0;
    this.#refreshBatchSize = options.refreshBatchSize ?? 500;
  }

  get(key: string): Promise<V> {
    return this.getMany([key]).then((values) => values[0] as V);
  }

  /** The values of `keys`, in order. */
  getMany(keys: readonly string[]): Promise<V[]> {
    const entries: Entry<V>[] = [];
    for (const key of keys) {
      let entry = this.#entries.get(key);
      if (!entry) {
        entry = { at: 0 };
        this.#entries.set(key, entry);
        this.#evict();
      }
      entries.push(entry);
      if (entry.loading) continue;
      if (entry.value === undefined) this.#queue(key, entry, false);
      else if (this.#now() - entry.at > this.#refreshMs) this.#queue(key, entry, this.#refreshBatchMs > 0);
    }
    // Entries with a value answer it (even while a refresh runs); the others wait for their load.
    return Promise.all(entries.map((e) => (e.value !== undefined ? e.value : (e.loading as Promise<V>))));
  }

  /** Queues a load of `key`: with the next turn's batch, or (`stale`) with the stale keys' batch. */
  #queue(key: string, entry: Entry<V>, stale: boolean): void {
    let settle: (value: V | Error) => void = () => {};
    entry.loading = new Promise<V>((resolve, reject) => {
      settle = (v) => (v instanceof Error ? reject(v) : resolve(v));
    });
    // Awaited by callers only; keep a rejection nobody waits for from going unhandled.
    entry.loading.catch(() => {});
    if (!stale) {
      if (this.#queued.length === 0)
        setImmediate(() => {
          const batch = this.#queued;
          this.#queued = [];
          this.#load(batch);
        });
      this.#queued.push({ key, entry, settle });
      return;
    }
    this.#stale.push({ key, entry, settle });
    if (this.#stale.length >= this.#refreshBatchSize) this.#flushStale();
    else if (!this.#staleTimer) {
      this.#staleTimer = setTimeout(() => this.#flushStale(), this.#refreshBatchMs);
      this.#staleTimer.unref();
    }
  }

  #flushStale(): void {
    clearTimeout(this.#staleTimer);
    this.#staleTimer = undefined;
    const batch = this.#stale;
    this.#stale = [];
    this.#load(batch);
  }

  #load(batch: readonly Queued<V>[]): void {
    this.#loadMany(batch.map((b) => b.key)).then(
      (values) => {
        const at = this.#now();
        for (const { key, entry, settle } of batch) {
          const loaded = values.get(key) ?? this.#fallback;
          const value =
            entry.value !== undefined && this.#equal?.(entry.value, loaded) ? entry.value : loaded;
          entry.value = value;
          entry.at = at;
          entry.loading = undefined;
          // Loaded keys move to the back of the eviction order.
          if (this.#entries.get(key) === entry) {
            this.#entries.delete(key);
            this.#entries.set(key, entry);
          }
          settle(value);
        }
      },
      (err) => {
        for (const { entry, settle } of batch) {
          entry.loading = undefined;
          settle(err instanceof Error ? err : new Error(String(err)));
        }
      },
    );
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
