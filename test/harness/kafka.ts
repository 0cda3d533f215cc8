import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { freePort } from "./ports.ts";

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCRIPT = path.join(ROOT, "scripts/kafka.mjs");

export interface KafkaBroker {
  /** `host:port` list for KAFKA_BROKERS. */
  readonly brokers: string;
  /** Stops the broker (if this run started it) and removes its data. */
  stop(): Promise<void>;
  /** Stops the broker process, keeping its data (fault tests). */
  pause(): void;
  /** Starts it again on the same port and data. */
  resume(): void;
}

/**
 * A single-node Kafka broker for a test run, started by `npm run kafka` on a free port with its own
 * data folder (the jars come from the shared cache, fetched once from Maven Central).
 */
export async function startKafka(): Promise<KafkaBroker> {
  // The controller listens on port + 1: both must be free.
  let port = await freePort();
  while (!(await isFree(port + 1))) port = await freePort();
  const env = { ...process.env, FEEDLAB_KAFKA_PORT: String(port) };
  const run = (cmd: string) =>
    execFileSync(process.execPath, [SCRIPT, cmd], {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  const out = run("start");
  const brokers = /KAFKA_BROKERS=(\S+)/.exec(out)?.[1];
  if (!brokers) throw new Error(`npm run kafka did not print KAFKA_BROKERS:\n${out}`);
  return {
    brokers,
    pause: () => {
      run("stop");
    },
    resume: () => {
      run("start");
    },
    stop: async () => {
      run("stop");
      rmSync(path.join(ROOT, ".cache/kafka", `data-${port}`), { recursive: true, force: true });
      rmSync(path.join(ROOT, ".cache/kafka", `broker-${port}.log`), { force: true });
      rmSync(path.join(ROOT, ".cache/kafka", `server-${port}.properties`), { force: true });
    },
  };
}
