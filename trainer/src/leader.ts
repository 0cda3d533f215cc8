import pg from "pg";
import type { Logger } from "pino";

/** Advisory lock held by the one trainer of a deployment. */
const TRAINER_LOCK = 0x7472_6169; // "trai"

export interface Leadership {
  /** True while this process holds the lock. */
  isLeader(): boolean;
  /** Releases the lock (if held) and stops trying. Idempotent. */
  stop(): Promise<void>;
}

/**
 * One trainer at a time: tries to take a session-level PostgreSQL advisory lock on a connection of
 * its own and keeps it for as long as the process lives (a crash or a lost connection releases it,
 * and another trainer takes over within `retryMs`). Without a PostgreSQL URL (the embedded database
 * is single-process) this process is the leader at once.
 */
export function holdLeadership(options: {
  databaseUrl: string | null;
  logger: Logger;
  onChange?: (leader: boolean) => void;
  retryMs?: number;
}): Leadership {
  const { logger } = options;
  const retryMs = options.retryMs ?? 5000;
  if (!options.databaseUrl) {
    options.onChange?.(true);
    return { isLeader: () => true, stop: async () => {} };
  }
  let leader = false;
  let stopped = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;

  const setLeader = (value: boolean) => {
    if (value === leader) return;
    leader = value;
    logger.info({ leader }, value ? "trainer leadership acquired" : "trainer leadership lost");
    options.onChange?.(value);
  };

  async function attempt(): Promise<void> {
    if (stopped) return;
    try {
      if (!client) {
        const c = new pg.Client({ connectionString: options.databaseUrl ?? undefined });
        c.on("error", (err) => {
          logger.warn({ err }, "trainer lock connection failed");
          client = null;
          setLeader(false);
        });
        await c.connect();
        client = c;
      }
      const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1) as ok", [
        TRAINER_LOCK,
      ]);
      if (rows[0]?.ok) setLeader(true);
    } catch (err) {
      logger.warn({ err }, "could not try the trainer lock");
      await client?.end().catch(() => {});
      client = null;
      setLeader(false);
    }
    if (!stopped && !leader) timer = setTimeout(() => void attempt(), retryMs);
  }
  void attempt();

  return {
    isLeader: () => leader,
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      setLeader(false);
      await c?.end().catch(() => {});
    },
  };
}
