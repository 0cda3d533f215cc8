/**
 * Counts attempts per key (a client address, say) in a sliding window: failed logins, joins. In-process state: with several API
 * processes each one counts on its own, so the effective limit is per process.
 */
export class FailureLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #failures = new Map<string, number[]>();
  /** Keys held before the next sweep of idle ones: doubles past the live keys, so sweeps stay rare. */
  #sweepAt = 10_000;

  constructor(options: { max: number; windowMs: number; now?: () => number }) {
    this.#max = options.max;
    this.#windowMs = options.windowMs;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds until the key may try again, or 0 when it may try now. */
  retryAfterSeconds(key: string): number {
    const recent = this.#recent(key);
    if (recent.length < this.#max) return 0;
    const oldest = recent[recent.length - this.#max] ?? this.#now();
    return Math.max(1, Math.ceil((oldest + this.#windowMs - this.#now()) / 1000));
  }

  /**
   * Counts an attempt before it runs, so attempts in flight at once count too: answers 0 when it may
   * run (and is now counted), or the seconds to wait (nothing counted).
   */
  attempt(key: string): number {
    const wait = this.retryAfterSeconds(key);
    if (wait === 0) this.fail(key);
    return wait;
  }

  /** Takes back the newest attempt counted for a key (one that turned out not to be a failure). */
  forgive(key: string): void {
    const recent = this.#recent(key);
    recent.pop();
    if (recent.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, recent);
  }

  fail(key: string): void {
    const recent = this.#recent(key);
    recent.push(this.#now());
    this.#failures.set(key, recent);
    if (this.#failures.size > this.#sweepAt) this.#sweep();
  }

  #recent(key: string): number[] {
    const cutoff = this.#now() - this.#windowMs;
    return (this.#failures.get(key) ?? []).filter((t) => t > cutoff);
  }

  #sweep(): void {
    for (const key of [...this.#failures.keys()]) {
      if (this.#recent(key).length === 0) this.#failures.delete(key);
    }
    this.#sweepAt = Math.max(10_000, 2 * this.#failures.size);
  }
}
