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

  fail(key: string): void {
    const recent = this.#recent(key);
    recent.push(this.#now());
    this.#failures.set(key, recent);
    if (this.#failures.size > this.#sweepAt) this.#sweep();
  }

  reset(key: string): void {
    this.#failures.delete(key);
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
