import type { LookupFunction } from "node:net";
import type { EventLog } from "@feedlab/ingest";
import { createProgressWatcher, readCheckpoints } from "@feedlab/projector";
import type { Logger } from "pino";
import type { buildConnector } from "undici";
import type { ChangeBus } from "../changes/change-bus.ts";
import type { Config } from "../config.ts";
import { scheduleMaintenance } from "../db/maintenance.ts";
import { runningExports } from "../events/parquet.ts";
import { createMonitoringRecorder } from "../monitoring/recorder.ts";
import { createAddressPolicy } from "../recommenders/external-http/addresses.ts";
import { createRecommenderServices } from "../recommenders/recommenders.service.ts";
import { createMetrics } from "../system/metrics.ts";
import {
  openChangeBus,
  openEventLog,
  openExternalHttp,
  openMedia,
  openProjector,
  openStore,
} from "./clients.ts";
import { createServices } from "./services.ts";

/**
 * Everything an API process needs (roles `api` and `all`), built once: the store, the event log,
 * the change bus, the recommenders, the projector (started only by `startProjector`) and the
 * services.
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  /**
   * `lookup`: the DNS lookup of external recommender calls (tests simulate DNS failures with it);
   * `connector`: what opens their connections once the address is checked (tests record attempts).
   */
  options: { migrate?: boolean; lookup?: LookupFunction; connector?: buildConnector.connector } = {},
) {
  const store = await openStore(config, log, options);
  const { db, dbKind: kind, link, deps, close: closeDb } = store;
  const metrics = createMetrics({ runningExports });
  let eventLog: EventLog;
  try {
    eventLog = await openEventLog(config, log, store);
  } catch (err) {
    await closeDb();
    throw err;
  }
  let changes: ChangeBus;
  try {
    changes = await openChangeBus(config, log, store);
  } catch (err) {
    await eventLog.close();
    await closeDb();
    throw err;
  }
  const addressPolicy = createAddressPolicy(config.recommenderAllow);
  const externalHttp = openExternalHttp(config, addressPolicy, options);
  const monitoring = createMonitoringRecorder({
    db,
    now: deps.now,
    log: log.child({ component: "monitoring" }),
  });
  const recommenders = createRecommenderServices({
    ...deps,
    monitoring,
    bus: changes,
    log,
    addressPolicy,
    metrics: metrics.recommenders,
    externalHttp,
  });
  // Warms the registry; a lookup fills in whatever this misses (say, a database not migrated yet).
  await recommenders.registry.load().catch((err) => log.warn({ err }, "recommender registry not loaded"));
  const projecting = openProjector(store, eventLog, log, { besideHttp: true });
  const { projector } = projecting;
  // The embedded database has one process, which makes every change that outdates the participant
  // lookups on request paths (stamping contexts, resolved cookies, the study gate) and clears them
  // at once: they may be kept a minute there. Other deployments keep each a few seconds, the most a
  // change made by another process can go unseen.
  const oneProcessCacheMs = kind === "pglite" ? 60_000 : undefined;
  const progress = createProgressWatcher({
    db,
    consumer: projector.consumer,
    local: projector,
    localOnly: kind === "pglite",
  });
  // The embedded database has one process, whose projector is the only writer of watched history:
  // the feed keeps it in memory instead of reading it on every request.
  if (kind === "pglite") recommenders.caches.followWatched(projector);
  metrics.watchProjector({
    stats: projector.stats,
    lag: async () => {
      const [head, applied] = await Promise.all([
        eventLog.position(),
        readCheckpoints(db, projector.consumer),
      ]);
      return [...head].reduce((sum, [p, o]) => sum + Math.max(0, o - (applied.get(p) ?? -1)), 0);
    },
  });
  const services = createServices({
    config,
    deps,
    link,
    eventLog,
    changes,
    recommenders,
    monitoring,
    metrics,
    logger: log,
    progress,
    oneProcessCacheMs,
  });
  services.approvals.start();
  services.scheduleKeeper.start();
  const media = openMedia(config);
  // PostgreSQL's autovacuum keeps statistics and space in order; PGlite has no background workers.
  const maintenance = kind === "pglite" ? scheduleMaintenance(db, log.child({ component: "db" })) : null;
  return {
    config,
    log,
    db,
    /** The process's one clock and id generator, which every service and the trainer use. */
    deps,
    dbKind: kind,
    metrics,
    eventLog,
    projector,
    progress,
    services,
    recommenders,
    changes,
    /** Uploaded videos, captions and thumbnails (FEEDLAB_MEDIA_DIR, or an S3-compatible bucket). */
    media,
    /** Starts this process's projector (roles `projector` and `all`). */
    startProjector: () => projecting.start(),
    /** Drains the projector, then closes the log and the database. */
    close: async () => {
      services.dryRuns.stop();
      await services.closeProlific();
      await services.scheduleKeeper.stop();
      await projecting.close();
      await eventLog.close();
      await changes.stop();
      await externalHttp.close();
      media.close?.();
      await monitoring.close();
      await services.power.stop();
      await maintenance?.stop();
      await closeDb();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof openRuntime>>;
