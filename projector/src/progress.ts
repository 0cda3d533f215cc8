import { covers, type LogPosition } from "@feedlab/ingest";
import type { Knex } from "knex";
import { readCheckpoints } from "./checkpoints.ts";
import type { Projector } from "./projector.ts";

/**
 * Read-your-writes: waits, bounded, until the projections have passed a log position. Uses the
 * local projector's progress when this process runs one, and the stored checkpoints otherwise
 * (another process projects).
 */
export function createProgressWatcher(options: {
  db: Knex;
  consumer: string;
  local?: Projector | null;
  pollMs?: number;
}) {
  const { db, consumer, local } = options;
  const pollMs = options.pollMs ?? 25;
  return {
    /** Resolves true once `target` is applied, false when `timeoutMs` passes first. */
    async waitFor(target: LogPosition, timeoutMs: number): Promise<boolean> {
      if (target.size === 0) return true;
      if (local && covers(local.reached(), target)) return true;
      if (covers(await readCheckpoints(db, consumer), target)) return true;
      const deadline = Date.now() + timeoutMs;
      return new Promise<boolean>((resolve) => {
        let done = false;
        let timer: NodeJS.Timeout | null = null;
        const finish = (ok: boolean) => {
          if (done) return;
          done = true;
          off?.();
          if (timer) clearTimeout(timer);
          resolve(ok);
        };
        const off = local?.onProgress(() => {
          if (covers(local.reached(), target)) finish(true);
        });
        const poll = async () => {
          if (done) return;
          if (Date.now() >= deadline) return finish(false);
          try {
            if (covers(await readCheckpoints(db, consumer), target)) return finish(true);
          } catch {
            // The database is busy or down: keep waiting until the deadline.
          }
          timer = setTimeout(poll, Math.min(local ? pollMs * 8 : pollMs, Math.max(1, deadline - Date.now())));
        };
        timer = setTimeout(poll, pollMs);
      });
    },
  };
}

export type ProgressWatcher = ReturnType<typeof createProgressWatcher>;
