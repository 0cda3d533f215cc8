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
 * `--max-semi-space-size=8` (MB): V8 sizes the young generation from the heap limit, which it
 * derives from the machine's memory (semi-spaces of 16 MB on a 24 GB machine), while the API's live
 * heap is about 30 MB. Request work (a CSV export, a feed page) allocates short-lived objects, which
 * 8 MB semi-spaces still collect young. Measured on 2026-11-25 (README, "Garbage collection"): the
 * surveys CSV export of 1M rows on PostgreSQL peaked at 150 MB with 8 MB, 168 MB with 4 MB (the
 * earlier setting) and 156 MB with 16 MB (idle 124, 116 and 138 MB); the feed's throughput and tails
 * were the same with all three within the machine's noise.
 *
 * `--no-wasm-code-gc`: V8 13.6 (Node 24.21) can free a wasm-to-JS import wrapper twice when one tiers
 * up while wasm code GC has marked it dying, and aborts the process ("Check failed:
 * jit_page_->allocations_.erase(addr) == 1", nodejs/node#66366; fixed in V8 upstream, not yet in a
 * 24.x release). The embedded database is WebAssembly, and a server that opens more than one (dry
 * runs, exports) churns such wrappers; the tests' workers hit it now and then. Without the GC, what
 * stays is code the engine no longer runs (replaced by optimised code, dead wrappers) of one module
 * compiled once per process (sql/src/pglite-proxy.ts).
 */
export const SERVER_V8_FLAGS = ["--max-semi-space-size=8", "--no-wasm-code-gc"];

/**
 * Environment of the long-running server, each variable set only where the environment does not set
 * it already. `MALLOC_ARENA_MAX=2`: glibc gives every thread that allocates its own malloc arenas
 * and seldom returns their memory; the server's worker threads (the embedded database, the Parquet
 * export, the trainer's pool) each kept tens of MB resident after their peak. With two arenas the
 * Parquet export of 1M events peaked lower in single runs on 2026-11-25 (README, "Results and
 * exports"); the threads' allocations are few and large, so sharing arenas costs them little.
 */
export const SERVER_ENV = { MALLOC_ARENA_MAX: "2" };

/** The variables of `wanted` that `env` does not set. */
export function missingEnv(wanted, env = process.env) {
  return Object.fromEntries(Object.entries(wanted).filter(([name]) => env[name] === undefined));
}

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
