// The projector's batches, applied in a thread of their own (batch-thread.ts starts it). A batch's
// transaction holds the embedded database, which runs one session at a time: applied from the
// thread that serves HTTP, each of its statements waited for that thread's event loop, and every
// append waited behind it. Here they wait only for this thread.
// Messages: {id, records} in; {id, result}, {id, error} and {log} out.
import { parentPort, workerData } from "node:worker_threads";
import type { LogRecord } from "@feedlab/ingest";
import { type DbLink, openLinkedDb } from "@feedlab/sql";
import { createBatchApplier } from "./batch-applier.ts";
import { type BatchJob, errorFields, type LogLevel } from "./batch-messages.ts";

const port = parentPort;
if (!port) throw new Error("batch.worker.ts runs as a worker thread");
const { link, consumer, multiProcess } = workerData as { link: DbLink } & BatchJob;
const db = openLinkedDb(link);

/** The applier's log lines go to the main thread's logger, errors as their fields. */
const post =
  (level: LogLevel) =>
  (obj: Record<string, unknown>, msg: string): void => {
    const fields = { ...obj, ...(obj.err === undefined ? {} : { err: errorFields(obj.err) }) };
    port.postMessage({ log: { level, obj: fields, msg } });
  };
const apply = createBatchApplier({
  db,
  consumer,
  multiProcess,
  logger: { warn: post("warn"), info: post("info") },
});

port.on("message", async (m: { id: number; records: LogRecord[] }) => {
  try {
    port.postMessage({ id: m.id, result: await apply(m.records) });
  } catch (err) {
    port.postMessage({ id: m.id, error: errorFields(err) });
  }
});
