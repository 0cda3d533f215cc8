/** What both clients' ports share. */

/** A record's headers as text: a header sent more than once keeps its first value. */
export function headersOf(entries: Iterable<readonly [unknown, unknown]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of entries) {
    if (v === undefined || v === null) continue;
    const key = String(k);
    if (key in out) continue;
    out[key] = String(Array.isArray(v) ? v[0] : v);
  }
  return out;
}

/** A consumer group id no one else uses, for a consumer that reads and leaves. */
export function throwawayGroup(purpose: string): string {
  return `feedlab-${purpose}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Runs `ask` again while it fails because the broker asked does not lead the partition yet (just
 * after a topic is created), refreshing the metadata between tries, for up to about two seconds.
 */
export async function withLeaderRetry<T>(
  ask: () => Promise<T>,
  notLeader: (err: unknown) => boolean,
  refresh: () => Promise<unknown>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await ask();
    } catch (err) {
      if (!notLeader(err) || attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
      await refresh().catch(() => {});
    }
  }
}
