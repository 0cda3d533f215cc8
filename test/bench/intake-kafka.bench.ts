import { randomUUID } from "node:crypto";
import { startKafka } from "../harness/kafka.ts";
import { freePort } from "../harness/ports.ts";
import { startPostgres } from "../harness/postgres.ts";
import { adminClient, startRole } from "../harness/processes.ts";
import { measure } from "./intake.bench.ts";
import { memoryOf } from "./support.ts";

export const name = "intake-kafka";
export const description =
  "The same intake load on the scale-out deployment: PostgreSQL, Kafka (KRaft, one broker), one API process and one projector process, all on this machine";

export async function run() {
  const postgres = await startPostgres();
  const kafka = await startKafka();
  const env = {
    DATABASE_URL: postgres.url,
    KAFKA_BROKERS: kafka.brokers,
    FEEDLAB_KAFKA_TOPIC: `feedlab.events.bench-${randomUUID().slice(0, 8)}`,
  };
  const api = await startRole("api", env, await freePort());
  const projector = await startRole("projector", env);
  return measure({
    url: api.url as string,
    admin: () => adminClient(api.url as string),
    peakRssMb: () => Math.round((memoryOf(api.child.pid).hwm + memoryOf(projector.child.pid).hwm) / 2 ** 20),
    stop: async () => {
      await api.stop();
      await projector.stop();
      await kafka.stop();
      await postgres.stop();
    },
  });
}
