import type { AddressInfo } from "node:net";
import type { EventLog } from "@feedlab/ingest";
import { holdLeadership } from "@feedlab/trainer";
import type { Logger } from "pino";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { Config } from "../config.ts";
import { startControlSocket } from "../db/control.ts";
import { VERSION } from "../db/release.ts";
import { EXPORT_WORKER } from "../events/event-store.read.ts";
import { warmWorker } from "../events/parquet.ts";
import { effectivePublicUrl } from "../settings/public-url.ts";
import { startTraining, type TrainerHost } from "../training/trainer.ts";
import { openChangeBus, openEventLog, openProjector, openStore } from "./clients.ts";
import { openRuntime } from "./runtime.ts";
import { buildApp, closeServer, listen } from "./server.ts";
import { printBanner, startupWrites } from "./startup.ts";

export type Role = "api" | "projector" | "trainer" | "all";
export const ROLES: readonly Role[] = ["api", "projector", "trainer", "all"];

/** Stops in the order given, once, however often it is called. */
function stopOnce(stops: readonly (() => Promise<void>)[]): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () => {
    stopping ??= (async () => {
      for (const stop of stops) await stop();
    })();
    return stopping;
  };
}

/**
 * One trainer per deployment (a PostgreSQL advisory lock): scheduled and requested model runs happen
 * only while this process leads. Answers the stops in the order things started: call them in
 * reverse, so the trainer stops before the lock goes.
 */
function startTrainerOn(rt: TrainerHost, config: Config, log: Logger): (() => Promise<void>)[] {
  const leadership = holdLeadership({
    databaseUrl: config.databaseUrl,
    logger: log.child({ role: "trainer" }),
  });
  const training = startTraining(rt, leadership);
  return [() => leadership.stop(), () => training.stop()];
}

/** Role `projector`: the store, the event log and the projector; nothing else. */
async function startProjectorRole(config: Config, log: Logger, out: (line: string) => void) {
  const store = await openStore(config, log);
  let eventLog: EventLog;
  try {
    eventLog = await openEventLog(config, log, store);
  } catch (err) {
    await store.close();
    throw err;
  }
  // No HTTP in this process: batches are applied on its main thread.
  const projecting = openProjector(store, eventLog, log, { besideHttp: false });
  try {
    await projecting.start();
  } catch (err) {
    await eventLog.close();
    await store.close();
    throw err;
  }
  out(`Feedlab ${VERSION}: projector running (${eventLog.kind} event log).`);
  return stopOnce([() => projecting.close(), () => eventLog.close(), () => store.close()]);
}

/** Role `trainer`: the store, the change bus (to announce new models) and the trainer; no event log. */
async function startTrainerRole(config: Config, log: Logger, out: (line: string) => void) {
  const store = await openStore(config, log);
  let changes: ChangeBus;
  try {
    changes = await openChangeBus(config, log, store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const stops = startTrainerOn({ ...store, log, config, changes }, config, log);
  out(`Feedlab ${VERSION}: trainer running (one leader per deployment).`);
  return stopOnce([...stops.reverse(), () => changes.stop(), () => store.close()]);
}

/**
 * `feedlab start`: migrations, the first admin, the demo study (unless FEEDLAB_DEMO=0), then the
 * roles asked for. Returns a stop function; SIGINT/SIGTERM call it.
 */
export async function start(config: Config, log: Logger, role: Role, out: (line: string) => void) {
  if (role === "projector") return startProjectorRole(config, log, out);
  if (role === "trainer") return startTrainerRole(config, log, out);
  const rt = await openRuntime(config, log);
  const stops: (() => Promise<void>)[] = [];
  try {
    if (role === "all") {
      await rt.startProjector();
      stops.push(...startTrainerOn(rt, config, log));
    }
    if (role === "api" && rt.dbKind === "pglite") {
      log.warn("role api on the embedded database: nothing projects events; use --role all (the default)");
    }
    // `feedlab backup` of the embedded database while this process holds it.
    if (rt.dbKind === "pglite") stops.push(await startControlSocket(rt.db, config.dataDir, log));
    if (role === "api" || role === "all") {
      const writes = await startupWrites(rt, config, log);
      // The export worker's modules compiled before a researcher asks for one (parquet.ts).
      warmWorker(EXPORT_WORKER);
      const server = await listen(buildApp(rt), config.host, config.port);
      stops.push(() => closeServer(server));
      // Reminders' links follow the port the server really listens on (PORT=0 picks one).
      rt.services.scheduleKeeper.setPublicUrl(
        effectivePublicUrl(config, (server.address() as AddressInfo).port),
      );
      // In the background: running studies' neighbours, ready before their participants ask.
      const warming = performance.now();
      rt.recommenders.warmRunning().then(
        (pools) => {
          if (pools > 0)
            log.info({ pools, ms: Math.round(performance.now() - warming) }, "recommenders warmed");
        },
        (err: unknown) => log.warn({ err }, "recommenders not warmed; pages load what they need"),
      );
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : config.port;
      printBanner(out, rt, config, port, writes);
    }
  } catch (err) {
    await rt.close();
    throw err;
  }
  // Last started, first stopped: the HTTP server, then training, then the trainer lock, then the
  // projector (drained) and the database in rt.close().
  return stopOnce([...[...stops].reverse(), () => rt.close()]);
}
