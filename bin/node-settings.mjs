// How the launcher (bin/feedlab.mjs) runs Node for Feedlab; the benchmarks start their server
// processes with the same settings, so that their figures are those of `feedlab start`.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Node's compile cache: the type-stripped TypeScript and V8's code cache of every module, keyed by
 * the file's contents (a changed file is simply stripped again). With a warm cache Node never loads
 * its TypeScript stripper, a WebAssembly module that would otherwise stay resident (20-25 MB) for
 * the life of every process, and start-up is faster. `.cache/` is git- and docker-ignored.
 */
export const COMPILE_CACHE_DIR = path.join(root, ".cache", "node-compile-cache");

/**
 * V8 settings of the long-running server (`feedlab start`), each added only when neither the
 * command line nor NODE_OPTIONS sets it already (so `NODE_OPTIONS=--max-semi-space-size=16` restores
 * V8's default).
 *
 * `--max-semi-space-size=4` (MB): V8 sizes the young generation from the heap limit, which it
 * derives from the machine's memory (semi-spaces of 16 MB on a 24 GB machine), while the API's live
 * heap is about 30 MB. Request work (a CSV export, a feed page) allocates short-lived objects, which
 * 4 MB semi-spaces still collect young. surveys-csv benchmark, PostgreSQL: idle RSS 137 -> 113 MB,
 * high-water mark over start and a 1M-row export 168 -> 145 MB, throughput unchanged within the
 * noise. The cost is more frequent (each cheaper) scavenges; 2 MB was too small (objects were
 * promoted before they died, and the peak rose).
 */
export const SERVER_V8_FLAGS = ["--max-semi-space-size=4"];

/**
 * Node flags for any command of a Kafka deployment. kafkajs 2.2.4 sets a timer with a negative delay
 * on every connection, which Node 24 reports on stderr as a TimeoutNegativeWarning
 * (tulios/kafkajs#1751, not fixed upstream); Node runs it after 1 ms, which is what kafkajs means.
 * Silenced only where KAFKA_BROKERS is set, so the warning still shows anywhere else.
 */
export function kafkaFlags(env = process.env) {
  return env.KAFKA_BROKERS ? ["--disable-warning=TimeoutNegativeWarning"] : [];
}

/** The flags of `flags` that neither `execArgv` nor NODE_OPTIONS already sets (by option name). */
export function missingFlags(
  flags,
  execArgv = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? "",
) {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)].map((f) => f.split("=")[0].replaceAll("_", "-"));
  return flags.filter((f) => !given.includes(f.split("=")[0]));
}
