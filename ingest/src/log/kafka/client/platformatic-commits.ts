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
  // Rounds until nothing waits; what is offered meanwhile joins the next round. Ends with no await
  // between the last look and `running = null`, so a later offer always starts a new drain.
  async function drain(): Promise<void> {
    while (latest.size > 0) {
      const round = [...latest.values()];
      latest.clear();
      await Promise.all(round.map((m) => new Promise<void>((done) => m.commit(() => done()))));
    }
    running = null;
  }
  return {
    offer(partition: number, message: Message): void {
      latest.set(partition, message);
      running ??= drain();
    },
    flush: (): Promise<void> => running ?? Promise.resolve(),
  };
}
