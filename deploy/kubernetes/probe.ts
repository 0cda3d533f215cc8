// The readiness and liveness probe of the roles that serve no HTTP (projector, trainer) in docker-compose.yml and
// deploy/kubernetes/: the API's /readyz asks whether PostgreSQL and Kafka answer; these roles have no
// port to ask, so the kubelet runs this inside their container (`node deploy/kubernetes/probe.ts
// postgres kafka`). It checks that DATABASE_URL's server and at least one of KAFKA_BROKERS accept a TCP
// connection, reads nothing else from the environment and imports nothing but Node, so it starts in
// well under a second. Exit 0 when every named dependency answers; 1, with the reason on stderr,
// otherwise; 2 for a wrong command line.
import net from "node:net";

/** What a role depends on: PostgreSQL (`postgres`) and, for the projector, the Kafka brokers (`kafka`). */
export type Dependency = "postgres" | "kafka";

const DEPENDENCIES: readonly Dependency[] = ["postgres", "kafka"];

/** One address to try. */
interface Target {
  readonly host: string;
  readonly port: number;
}

/** How long one connection may take before the address counts as not answering. */
const CONNECT_TIMEOUT_MS = 2000;

/**
 * The addresses to try for a dependency, from the role's own environment: DATABASE_URL's host and
 * port (5432 when it names none), or every `host:port` of KAFKA_BROKERS. Throws when the variable is
 * missing or names no address.
 */
function targetsOf(dependency: Dependency, env: Readonly<Record<string, string | undefined>>): Target[] {
  if (dependency === "postgres") {
    const url = env.DATABASE_URL;
    if (!url) throw new Error("DATABASE_URL is not set");
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error("DATABASE_URL is not a URL");
    }
    if (!parsed.hostname) throw new Error("DATABASE_URL names no host");
    return [{ host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port: Number(parsed.port || 5432) }];
  }
  const brokers = (env.KAFKA_BROKERS ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => b !== "");
  if (brokers.length === 0) throw new Error("KAFKA_BROKERS is not set");
  return brokers.map((b) => {
    const colon = b.lastIndexOf(":");
    return { host: b.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), port: Number(b.slice(colon + 1)) };
  });
}

/** Whether `target` accepts a TCP connection within `timeoutMs`. */
function accepts(target: Target, timeoutMs = CONNECT_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.host, port: target.port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

/**
 * The problems that make the role not ready, one line each: none when every dependency has an address
 * that accepts a connection (any one broker is enough: the Kafka client finds the others through it).
 */
export async function probe(
  dependencies: readonly Dependency[],
  env: Readonly<Record<string, string | undefined>>,
  timeoutMs = CONNECT_TIMEOUT_MS,
): Promise<string[]> {
  const problems: string[] = [];
  for (const dependency of dependencies) {
    let targets: Target[];
    try {
      targets = targetsOf(dependency, env);
    } catch (err) {
      problems.push(`${dependency}: ${(err as Error).message}`);
      continue;
    }
    const answers = await Promise.all(targets.map((t) => accepts(t, timeoutMs)));
    if (!answers.includes(true)) {
      const where = targets.map((t) => `${t.host}:${t.port}`).join(", ");
      problems.push(`${dependency}: no connection to ${where} within ${timeoutMs} ms`);
    }
  }
  return problems;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const unknown = args.filter((a) => !DEPENDENCIES.includes(a as Dependency));
  if (args.length === 0 || unknown.length > 0) {
    process.stderr.write(`usage: node deploy/kubernetes/probe.ts ${DEPENDENCIES.join("|")}...\n`);
    process.exit(2);
  }
  const problems = await probe(args as Dependency[], process.env);
  for (const p of problems) process.stderr.write(`not ready: ${p}\n`);
  process.exit(problems.length > 0 ? 1 : 0);
}
