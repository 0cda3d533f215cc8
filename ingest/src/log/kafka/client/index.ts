import type { KafkaClient, KafkaClientName, KafkaClientOptions } from "./port.ts";

/** The port on the chosen client, loaded on first use so a process loads only the client it runs. */
export async function createKafkaClient(
  name: KafkaClientName,
  options: KafkaClientOptions,
): Promise<KafkaClient> {
  if (name === "platformatic") return (await import("./platformatic.ts")).createPlatformaticClient(options);
  return (await import("./kafkajs.ts")).createKafkajsClient(options);
}
