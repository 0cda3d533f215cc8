/**
 * Lets at most `limit` tasks run at once; the others wait their turn, first come first served.
 */
export class Semaphore {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError("a semaphore needs a limit of 1 or more");
    this.#limit = limit;
  }

  /** Tasks running now. */
  get running(): number {
    return this.#running;
  }

  /** Runs `task` once a place is free, and frees the place when it settles. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The place passes straight to the next task waiting, so none can jump the queue.
      if (next) next();
      else this.#running--;
    }
  }
}
