import { Kafka, logLevel as KafkaLogLevel, type LogEntry } from "kafkajs";
import type { Logger } from "pino";
import type { KafkaLogOptions } from "./options.ts";

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, log }: LogEntry) => {
      const { message, ...extra } = log;
      if (level === KafkaLogLevel.ERROR) logger.error(extra, `kafka: ${message}`);
      else if (level === KafkaLogLevel.WARN) logger.warn(extra, `kafka: ${message}`);
      else logger.debug(extra, `kafka: ${message}`);
    };
}

/** The kafkajs client of one adapter, logging its warnings and errors through the process's logger. */
export function createKafkaClient(options: KafkaLogOptions): Kafka {
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: 3000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 3000 },
    logLevel: KafkaLogLevel.WARN,
    logCreator: kafkaLogger(options.logger),
  });
}
