import type { Message } from "@platformatic/kafka";

/**
 * A group's offset commits, sent after their chunks are applied but without the next chunk waiting for
 * the broker's answer (kafkajs commits once per batch the same way): the newest applied message of each
 * partition, one round of requests at a time, so a partition's committed offset never goes back. A
 * commit that fails (a rebalance took the partition, the broker was away) costs only a redelivery,
 * which the stored checkpoint skips; `flush` waits for what was offered.
 */
export function backgroundCommits() {
  const latest = new Map<number, Message>();
  let running: Promise<void> | null = null;
  const flush = (): Promise<void> => {
    running ??= (async () => {
      while (latest.size > 0) {
        const round = [...latest.values()];
        latest.clear();
        await Promise.all(round.map((m) => new Promise<void>((done) => m.commit(() => done()))));
      }
    })().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    offer(partition: number, message: Message): void {
      latest.set(partition, message);
      void flush().then(() => {
        // Offered while the last round ended: its own round.
        if (latest.size > 0) void flush();
      });
    },
    flush: async (): Promise<void> => {
      while (running || latest.size > 0) await flush();
    },
  };
}
