import { type AdminSession, LoadTestError } from "./admin.ts";
import type { StoredCheck } from "./summary.ts";

/** The longest wait for the projector to store every acknowledged event. */
const WAIT_MS = 60_000;
/** Give up sooner when the count stopped growing this long (events lost, not late). */
const STALL_MS = 15_000;
const POLL_MS = 1000;
/** Exports in a row that could not be read before the check gives up (the deployment is gone). */
const ATTEMPTS = 3;

/**
 * Checks that every acknowledged event id is in the experiment's events export, reading it again
 * while the projector catches up: until all are there, the count stops growing for 15 s, 60 s have
 * passed, or three reads in a row failed. `onRead` is told the count after each read.
 */
export async function checkStored(
  admin: AdminSession,
  experimentId: string,
  since: Date,
  ids: ReadonlySet<string>,
  onRead: (stored: number) => void,
): Promise<StoredCheck> {
  const start = performance.now();
  let best = 0;
  let grewAt = start;
  let failures = 0;
  let error: string | null = null;
  for (;;) {
    try {
      const stored = await admin.countStored(experimentId, since, ids);
      failures = 0;
      error = null;
      if (stored > best) {
        best = stored;
        grewAt = performance.now();
      }
      onRead(stored);
      if (stored >= ids.size) return { stored, error: null };
    } catch (e) {
      if (!(e instanceof LoadTestError)) throw e;
      failures += 1;
      error = e.message;
      if (failures >= ATTEMPTS) return { stored: best, error };
    }
    const now = performance.now();
    if (now - start > WAIT_MS || now - grewAt > STALL_MS) return { stored: best, error };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
