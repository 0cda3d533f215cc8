import { covers, type LogPosition } from "@feedlab/ingest";
import type { Knex } from "knex";
import { readCheckpoints } from "./checkpoints.ts";
import type { Projector } from "./projector.ts";

interface Waiter {
  readonly target: LogPosition;
  finish(ok: boolean): void;
}

/**
 * Read-your-writes: waits, bounded, until the projections have passed a log position. Uses the
 * local projector's progress when this process runs one, and the stored checkpoints otherwise
 * (another process projects). However many requests wait, one loop reads the checkpoints (every
 * `pollMs` while any waits): each waiter polling on its own made the database's load grow with the
 * number of requests in flight, which slowed the projector it waited for.
 */
export function createProgressWatcher(options: {
  db: Knex;
  consumer: string;
  local?: Projector | null;
  /**
   * The local projector is the only one (the embedded database has one process): once it knows
   * where it started, its progress is the truth, and the stored checkpoints are not read.
   */
  localOnly?: boolean;
  pollMs?: number;
}) {
  const { db, consumer, local } = options;
  const trustLocal = () => local && options.localOnly && local.seeded();
  const pollMs = options.pollMs ?? 25;
  const waiters = new Set<Waiter>();
  let polling = false;

  const settle = (reached: LogPosition) => {
    for (const w of waiters) if (covers(reached, w.target)) w.finish(true);
  };
  local?.onProgress(() => {
    if (waiters.size > 0) settle(local.reached());
  });

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      while (waiters.size > 0) {
        await new Promise((r) => setTimeout(r, pollMs));
        if (waiters.size === 0) break;
        if (trustLocal()) continue;
        try {
          settle(await readCheckpoints(db, consumer));
        } catch {
          // The database is busy or down: keep waiting until the deadlines.
        }
      }
    } finally {
      polling = false;
    }
  }

  return {
    /** Resolves true once `target` is applied, false when `timeoutMs` passes first. */
    async waitFor(target: LogPosition, timeoutMs: number): Promise<boolean> {
      if (target.size === 0) return true;
      if (local && covers(local.reached(), target)) return true;
      if (!trustLocal() && covers(await readCheckpoints(db, consumer), target)) return true;
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          target,
          finish: (ok) => {
            if (!waiters.delete(waiter)) return;
            clearTimeout(timer);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => waiter.finish(false), timeoutMs);
        waiters.add(waiter);
        if (!trustLocal()) void poll();
      });
    },
  };
}

export type ProgressWatcher = ReturnType<typeof createProgressWatcher>;
