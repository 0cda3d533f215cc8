import type { EventLog } from "./log/event-log.ts";
import type { KafkaLogOptions } from "./log/kafka/index.ts";

export * from "./intake/intake.pipeline.ts";
export * from "./intake/results.ts";
export * from "./intake/session.step.ts";
export * from "./intake/stamp.step.ts";
export * from "./intake/validate.step.ts";
export * from "./log/embedded.ts";
export * from "./log/event-log.migration.ts";
export * from "./log/event-log.ts";
export { DEFAULT_KAFKA_CLIENT, KAFKA_CLIENTS, type KafkaClientName } from "./log/kafka/client/port.ts";
export type { KafkaLogOptions } from "./log/kafka/index.ts";
export { seal, unseal } from "./log/keyring.ts";

/**
 * The Kafka adapter. It loads on first use, with kafkajs, so a process on the embedded log never
 * loads (and keeps in memory) the Kafka client.
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<EventLog> {
  return (await import("./log/kafka/index.ts")).createKafkaLog(options);
}
