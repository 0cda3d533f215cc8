import { parseArgs } from "node:util";
import { type EventLog, eventOf } from "@feedlab/ingest";
import { EVENT_TYPES, isUuid, type LoggedEvent, parseEventTypes } from "@feedlab/schemas";
import { openEventLog, openStore } from "../../app/clients.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, err, UsageError } from "../command.ts";

export const tail: Command = {
  name: "tail",
  usage: "tail [--from-beginning] [--follow] [--lines N] [--type T,...] [--experiment ID]",
  summary: [
    "Decode the event log to NDJSON on stdout, one event per line",
    "with its partition and offset: the newest N (default 10) of",
    "each partition, all (--from-beginning), then new ones as they",
    "come (--follow, until Ctrl-C). On Kafka it needs only",
    "KAFKA_BROKERS and leaves no consumer group behind",
  ],
  run: async (args: string[], config: Config) => {
    const { values } = parseArgs({
      args,
      options: {
        "from-beginning": { type: "boolean", default: false },
        follow: { type: "boolean", short: "f", default: false },
        lines: { type: "string", short: "n" },
        type: { type: "string", multiple: true },
        experiment: { type: "string" },
      },
    });
    const parsed = parseEventTypes(values.type ?? []);
    if (parsed.unknown.length > 0)
      throw new UsageError(
        `Unknown event type ${parsed.unknown.join(", ")}. Known: ${EVENT_TYPES.join(", ")}`,
      );
    const types = new Set(parsed.types);
    const experiment = values.experiment ?? null;
    if (experiment !== null && !isUuid(experiment))
      throw new UsageError("--experiment must be an experiment id");
    const lines = values.lines === undefined ? 10 : Number(values.lines);
    if (!Number.isInteger(lines) || lines < 0) throw new UsageError("--lines must be a whole number");
    // Messages go to stderr: stdout carries only the records.
    const log = createLogger("warn", config.logFormat, "stderr");
    // On Kafka the log needs no database (keys come from their mirror topic); the embedded log is a table.
    const store = config.kafkaBrokers.length > 0 ? null : await openStore(config, log, { migrate: false });
    let eventLog: EventLog;
    try {
      eventLog = await openEventLog(config, log, store);
    } catch (e) {
      await store?.close();
      throw e;
    }
    try {
      const head = await eventLog.position();
      // From the start, after the newest record (--follow), or the newest few of each partition.
      const after = new Map(
        [...head].map(([p, o]) => [
          p,
          values["from-beginning"] ? -1 : values.follow ? o : Math.max(-1, o - lines),
        ]),
      );
      const write = (text: string) =>
        process.stdout.write(text) ? Promise.resolve() : new Promise((r) => process.stdout.once("drain", r));
      const scan = eventLog.scan({
        after,
        ...(values.follow ? {} : { until: head }),
        maxBatch: 1000,
        onBatch: async (records) => {
          let text = "";
          for (const r of records) {
            if (r.erased) continue;
            let event: LoggedEvent;
            try {
              event = eventOf(r);
            } catch (e) {
              err(`tail: partition ${r.partition} offset ${r.offset}: ${(e as Error).message}`);
              continue;
            }
            if (types.size > 0 && !types.has(event.event_type)) continue;
            if (experiment !== null && event.experiment_id !== experiment) continue;
            text += `${JSON.stringify({ partition: r.partition, offset: r.offset, ...event })}\n`;
          }
          if (text) await write(text);
        },
      });
      const stop = () => void scan.stop();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      // A closed pipe (| head): stop quietly.
      process.stdout.on("error", (e: NodeJS.ErrnoException) => {
        if (e.code === "EPIPE") stop();
      });
      await scan.done;
    } finally {
      await eventLog.close();
      await store?.close();
    }
  },
};
