import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { LookupFunction } from "node:net";
import path from "node:path";
import { createEmbeddedLog, createKafkaLog, type EventLog } from "@feedlab/ingest";
import {
  createProgressWatcher,
  createProjector,
  DEFAULT_CONSUMER,
  readCheckpoints,
  runRequestedRebuilds,
} from "@feedlab/projector";
import { holdLeadership } from "@feedlab/trainer";
import type { Logger } from "pino";
import { auditHook } from "./audit/audit.hook.ts";
import { auditRoutes } from "./audit/audit.routes.ts";
import { createAuditService } from "./audit/audit.service.ts";
import { createAuthMiddleware } from "./auth/auth.middleware.ts";
import { authRoutes } from "./auth/auth.routes.ts";
import { createAuthService } from "./auth/auth.service.ts";
import { cookieGuard } from "./auth/cookies.ts";
import { ensureFirstAdmin } from "./auth/first-admin.ts";
import type { Config } from "./config.ts";
import { startControlSocket } from "./db/control.ts";
import { type DbKind, migrate, openDb } from "./db/db.ts";
import { scheduleMaintenance } from "./db/maintenance.ts";
import { DEMO_MEDIA_DIR, seedDemo } from "./demo/seed.ts";
import type { ServiceDeps } from "./deps.ts";
import { createErasureService } from "./erasure/erasure.service.ts";
import { createEventStoreReader, EXPORT_WORKER } from "./events/event-store.read.ts";
import { eventRoutes } from "./events/events.routes.ts";
import { createEventsService } from "./events/events.service.ts";
import { warmWorker } from "./events/parquet.ts";
import { schemaRoutes } from "./events/schemas.routes.ts";
import { experimentRoutes } from "./experiments/experiments.routes.ts";
import { createExperimentsService } from "./experiments/experiments.service.ts";
import { feedRoutes } from "./feed/feed.routes.ts";
import { createFeedService } from "./feed/feed.service.ts";
import { groupRoutes } from "./groups/groups.routes.ts";
import { createGroupsService } from "./groups/groups.service.ts";
import { createApp } from "./http/app.ts";
import { trustCheck } from "./http/client-address.ts";
import { proxyNotice } from "./http/proxy-notice.ts";
import { mediaRoutes, UPLOADS_PREFIX } from "./media/media.routes.ts";
import { folderMediaStore, type MediaStore, serveMedia } from "./media/media-store.ts";
import { s3MediaStore } from "./media/s3-store.ts";
import { healthRoutes } from "./monitoring/health.routes.ts";
import { createHealthService } from "./monitoring/health.service.ts";
import { createMonitoringRecorder } from "./monitoring/recorder.ts";
import { participantRoutes } from "./participants/participants.routes.ts";
import { createParticipantsService } from "./participants/participants.service.ts";
import { applyInThread } from "./projector/batch-thread.ts";
import { createLocalChangeBus, createPgChangeBus } from "./recommenders/changes.ts";
import { createExternalHttpClient } from "./recommenders/external-http/client.ts";
import { recommenderRoutes } from "./recommenders/recommenders.routes.ts";
import { createRecommenderServices } from "./recommenders/recommenders.service.ts";
import { createCompletenessService } from "./results/completeness.service.ts";
import { createMonitorService } from "./results/monitor.service.ts";
import { resultsRoutes } from "./results/results.routes.ts";
import { createStatsService } from "./results/stats.service.ts";
import { sessionRoutes } from "./sessions/sessions.routes.ts";
import { createSessionsService } from "./sessions/sessions.service.ts";
import { effectivePublicUrl, publicUrlNotice } from "./settings/public-url.ts";
import { settingsRoutes } from "./settings/settings.routes.ts";
import { createStudyService } from "./study/study.service.ts";
import { createSurveyResponsesService } from "./surveys/responses.service.ts";
import { surveyRoutes } from "./surveys/surveys.routes.ts";
import { createSurveysService } from "./surveys/surveys.service.ts";
import { createMetrics } from "./system/metrics.ts";
import { startTraining, type TrainerHost } from "./training/trainer.ts";
import { trainingRoutes } from "./training/training.routes.ts";
import { createTrainingService } from "./training/training.service.ts";
import { uiPresetRoutes } from "./ui/presets.ts";
import { templateRoutes } from "./ui/templates.routes.ts";
import { createTemplatesService } from "./ui/templates.service.ts";
import { videoRoutes } from "./videos/videos.routes.ts";
import { createVideosService } from "./videos/videos.service.ts";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const WEB_BUILD_DIR = path.join(REPO_ROOT, "web", "build");
export const VERSION: string = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;

export type Role = "api" | "projector" | "trainer" | "all";
export const ROLES: readonly Role[] = ["api", "projector", "trainer", "all"];

/** The database, migrated, with the process's one clock and id generator. Every role and command starts here. */
export async function openStore(config: Config, log: Logger, options: { migrate?: boolean } = {}) {
  const { db, kind, link, close } = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    if (options.migrate ?? true) {
      const applied = await migrate(db);
      if (applied.length > 0) log.info({ applied }, "migrations applied");
    }
  } catch (err) {
    await close();
    throw err;
  }
  const deps: ServiceDeps = { db, newId: randomUUID, now: () => new Date() };
  return { db, dbKind: kind as DbKind, link, deps, close };
}

export type Store = Awaited<ReturnType<typeof openStore>>;

/**
 * The event log of the configuration: Kafka when KAFKA_BROKERS is set (no database needed), else the
 * embedded log in the store's database.
 */
export async function openEventLog(config: Config, log: Logger, store: Store | null): Promise<EventLog> {
  if (config.kafkaBrokers.length > 0) {
    return createKafkaLog({
      brokers: config.kafkaBrokers,
      topic: config.kafkaTopic,
      partitions: config.kafkaPartitions,
      clientId: `feedlab-${process.pid}`,
      logger: log.child({ component: "kafka" }),
      // Participant keys live in the database; tools without it read their mirror topic.
      db: store?.db,
      retentionMs: config.kafkaRetentionMs,
      encryption: config.kafkaEncryption,
      registryUrl: config.schemaRegistryUrl,
    });
  }
  if (!store) throw new Error("The embedded event log lives in the database: open the store first.");
  return createEmbeddedLog({ db: store.db, multiProcess: store.dbKind === "postgres" });
}

/** The bus that tells every API process about changes (LISTEN/NOTIFY on PostgreSQL), started. */
export async function openChangeBus(config: Config, log: Logger, store: Store) {
  const changes = config.databaseUrl
    ? createPgChangeBus({
        db: store.db,
        connectionString: config.databaseUrl,
        log: log.child({ component: "changes" }),
      })
    : createLocalChangeBus();
  await changes.start();
  return changes;
}

/**
 * Everything an API process needs (roles `api` and `all`), built once: the store, the event log,
 * the change bus, the recommenders, the projector (started only by `startProjector`) and the
 * services. The only place that constructs clients.
 */
export async function openRuntime(
  config: Config,
  log: Logger,
  /** `lookup`: the DNS lookup of external recommender calls (tests simulate DNS failures with it). */
  options: { migrate?: boolean; lookup?: LookupFunction } = {},
) {
  const store = await openStore(config, log, options);
  const { db, dbKind: kind, link, deps, close: closeDb } = store;
  const metrics = createMetrics();
  let eventLog: EventLog;
  try {
    eventLog = await openEventLog(config, log, store);
  } catch (err) {
    await closeDb();
    throw err;
  }
  let changes: Awaited<ReturnType<typeof openChangeBus>>;
  try {
    changes = await openChangeBus(config, log, store);
  } catch (err) {
    await eventLog.close();
    await closeDb();
    throw err;
  }
  // Recommenders: one outbound HTTP pool for every external recommender.
  const externalHttp = createExternalHttpClient({
    connections: config.recommenderConnections,
    lookup: options.lookup,
    userAgent: `feedlab/${VERSION}`,
  });
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
    metrics: metrics.recommenders,
    externalHttp,
  });
  const multiProcess = kind === "postgres";
  // Warms the registry; a lookup fills in whatever this misses (say, a database not migrated yet).
  await recommenders.registry.load().catch((err) => log.warn({ err }, "recommender registry not loaded"));
  const projectorLog = log.child({ role: "projector" });
  // The embedded database runs one session at a time, and a batch's transaction holds it: its
  // statements are sent from a thread of their own rather than between HTTP requests.
  const batchThread =
    kind === "pglite"
      ? applyInThread({ link }, { consumer: DEFAULT_CONSUMER, multiProcess }, projectorLog)
      : null;
  const projector = createProjector({
    db,
    log: eventLog,
    logger: projectorLog,
    multiProcess,
    applyBatch: batchThread?.apply,
  });
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
  if (kind === "pglite") recommenders.readModels.followWatched(projector);
  const events = createEventsService({
    ...deps,
    log: eventLog,
    counters: metrics.events,
    monitoring,
    contextTtlMs: oneProcessCacheMs,
  });
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
  // One sessions service: the feed and survey responses check session ownership with the same one.
  const sessions = createSessionsService({ ...deps, idleMs: config.sessionIdleMinutes * 60_000 });
  const study = createStudyService(deps, { gateCacheMs: oneProcessCacheMs });
  const templates = createTemplatesService({
    ...deps,
    onVersion: (templateId) => void changes.publish({ type: "template", template_id: templateId }),
  });
  const auth = createAuthService(deps, { resolveCacheMs: oneProcessCacheMs });
  const audit = createAuditService(deps);
  const services = {
    auth,
    experiments: createExperimentsService({ ...deps, onStudyChange: () => study.invalidate() }),
    groups: createGroupsService({
      ...deps,
      recommenders: recommenders.registry,
      uiFits: templates.fits,
      onChange: (groupId) => void changes.publish({ type: "group", group_id: groupId }),
    }),
    videos: createVideosService({ ...deps, onChange: (change) => void changes.publish(change) }),
    participants: createParticipantsService({ ...deps, joinSecret: config.joinSecret }),
    sessions,
    study,
    audit,
    erasure: createErasureService({
      ...deps,
      log: eventLog,
      audit,
      onErased: () => void changes.publish({ type: "participants_erased" }),
    }),
    feed: createFeedService({ db, dispatcher: recommenders.dispatcher, sessions, bus: changes }),
    surveys: createSurveysService(deps),
    surveyResponses: createSurveyResponsesService({ ...deps, sessions, study }),
    events,
    eventStore: createEventStoreReader(db, link),
    training: createTrainingService(deps),
    stats: createStatsService(deps),
    completeness: createCompletenessService(deps),
    monitor: createMonitorService({ ...deps, monitoring }),
    health: createHealthService({
      ...deps,
      catalog: recommenders.registry,
      instance: recommenders.dispatcher.instance,
      build: recommenders.build,
      pools: recommenders.pools,
      monitoring,
    }),
    templates,
  };
  // Stamping contexts hold a group's recommender keys and UI versions: drop them when either changes.
  changes.subscribe((change) => {
    if (
      change.type === "group" ||
      change.type === "template" ||
      change.type === "resync" ||
      change.type === "participants_erased"
    )
      events.invalidateContexts();
    // An erased participant's cookie answers 401 at once, and nothing of theirs stays remembered.
    if (change.type === "participants_erased" || change.type === "resync") {
      auth.forgetResolved();
      study.invalidate();
    }
  });
  const media: MediaStore & { close?: () => void } = config.mediaS3
    ? s3MediaStore(config.mediaS3)
    : folderMediaStore(config.mediaDir);
  // PostgreSQL's autovacuum keeps statistics and space in order; PGlite has no background workers.
  const maintenance = kind === "pglite" ? scheduleMaintenance(db, log.child({ component: "db" })) : null;
  let projecting = false;
  return {
    config,
    log,
    db,
    /** The process's one clock and id generator, which every service and the trainer use. */
    deps,
    dbKind: kind as DbKind,
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
    startProjector: async () => {
      await runRequestedRebuilds({
        db,
        log: eventLog,
        logger: log.child({ role: "projector" }),
        multiProcess: kind === "postgres",
      });
      projecting = true;
      batchThread?.start();
      projector.start();
    },
    /** Drains the projector, then closes the log and the database. */
    close: async () => {
      if (projecting) await projector.stop();
      await batchThread?.close();
      await eventLog.close();
      await changes.stop();
      await externalHttp.close();
      media.close?.();
      await monitoring.close();
      await maintenance?.stop();
      await closeDb();
    },
  };
}

export type Runtime = Awaited<ReturnType<typeof openRuntime>>;

export function buildApp(rt: Runtime, options: { webBuildDir?: string } = {}) {
  const { services, db, config } = rt;
  const cookies = { secure: config.secureCookies };
  const routes = [
    ...authRoutes({ auth: services.auth, cookies, audit: services.audit }),
    ...auditRoutes({ audit: services.audit }),
    ...experimentRoutes(services),
    ...groupRoutes(services),
    ...videoRoutes(services),
    ...mediaRoutes({
      media: rt.media,
      maxUploadBytes: config.maxUploadBytes,
      store: config.mediaS3 ? "s3" : "folder",
    }),
    ...participantRoutes({
      db,
      participants: services.participants,
      auth: services.auth,
      cookies,
      study: services.study,
      erasure: services.erasure,
      joinRateLimit: config.joinRateLimit,
    }),
    ...sessionRoutes(services),
    ...feedRoutes({ feed: services.feed, progress: rt.progress, study: services.study }),
    ...eventRoutes(services),
    ...schemaRoutes(),
    ...surveyRoutes({
      db,
      surveys: services.surveys,
      surveyResponses: services.surveyResponses,
      study: services.study,
    }),
    ...recommenderRoutes({ registry: rt.recommenders.registry }),
    ...uiPresetRoutes(),
    ...templateRoutes(services),
    ...trainingRoutes(services),
    ...resultsRoutes(services),
    ...healthRoutes(services),
    ...settingsRoutes({ config }),
  ];
  return createApp({
    log: rt.log,
    metrics: rt.metrics,
    routes,
    version: VERSION,
    auth: createAuthMiddleware(services.auth),
    audit: auditHook(services.audit),
    ready: async () => {
      await db.raw("select 1");
      await rt.eventLog.healthcheck();
    },
    cookieGuard: cookieGuard(cookies),
    trustedProxy: trustCheck(config.trustProxy),
    hsts: config.publicUrl.startsWith("https://"),
    webBuildDir: options.webBuildDir ?? WEB_BUILD_DIR,
    mediaDirs: { demo: DEMO_MEDIA_DIR },
    uploads: serveMedia(rt.media, UPLOADS_PREFIX),
  });
}

/** Starts the HTTP server; resolves once it listens. */
export function listen(app: ReturnType<typeof buildApp>, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
  });
}

/** Closes the server gracefully: stop accepting, let requests in flight finish (bounded), then return. */
export function closeServer(server: Server, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

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
  const projector = createProjector({
    db: store.db,
    log: eventLog,
    logger: log.child({ role: "projector" }),
    multiProcess: store.dbKind === "postgres",
  });
  try {
    await runRequestedRebuilds({
      db: store.db,
      log: eventLog,
      logger: log.child({ role: "projector" }),
      multiProcess: store.dbKind === "postgres",
    });
  } catch (err) {
    await eventLog.close();
    await store.close();
    throw err;
  }
  projector.start();
  out(`Feedlab ${VERSION}: projector running (${eventLog.kind} event log).`);
  return stopOnce([() => projector.stop(), () => eventLog.close(), () => store.close()]);
}

/** Role `trainer`: the store, the change bus (to announce new models) and the trainer; no event log. */
async function startTrainerRole(config: Config, log: Logger, out: (line: string) => void) {
  const store = await openStore(config, log);
  let changes: Awaited<ReturnType<typeof openChangeBus>>;
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

/** Advisory lock key held while one process creates the first admin and seeds the demo. */
const STARTUP_LOCK = 0x6665_6564; // "feed"

/**
 * Runs start-up writes under a PostgreSQL advisory lock, so API processes starting together create
 * one admin and one demo. PGlite is single-process by construction and needs none (and its single
 * connection could not hold a lock while the work runs).
 */
async function underStartupLock<T>(rt: Runtime, fn: () => Promise<T>): Promise<T> {
  if (rt.dbKind === "pglite") return fn();
  return rt.db.transaction(async (trx) => {
    await trx.raw("select pg_advisory_xact_lock(?)", [STARTUP_LOCK]);
    return fn();
  });
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
      const { admin, demo } = await underStartupLock(rt, async () => ({
        admin: await ensureFirstAdmin(rt.services.auth, config.adminUsername, config.adminPassword),
        demo: config.demo ? await seedDemo({ db: rt.db, log, ...rt.services }) : null,
      }));
      // The export worker's modules compiled before a researcher asks for one (parquet.ts).
      warmWorker(EXPORT_WORKER);
      const server = await listen(buildApp(rt), config.host, config.port);
      stops.push(() => closeServer(server));
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
      const base = effectivePublicUrl(config, port);
      out("");
      out(
        `Feedlab ${VERSION} is running (${rt.dbKind === "pglite" ? `embedded database in ${config.dataDir}` : "PostgreSQL"}).`,
      );
      out(`  Admin console:  ${base}/admin`);
      if (admin.generatedPassword) {
        out(
          `  Admin login:    ${admin.username} / ${admin.generatedPassword}   (generated now and shown only this once)`,
        );
      } else if (admin.created) {
        out(`  Admin login:    ${admin.username} (password from FEEDLAB_ADMIN_PASSWORD)`);
      } else {
        out("  Admin login:    your existing admin account (`feedlab admin create` adds another)");
      }
      if (demo) {
        out(`  Demo study:     ${demo.experiment.name}`);
        out(`  Join link:      ${base}/join/${demo.experiment.id}?login_id=demo-participant-1`);
      }
      out(`  API reference:  ${base}/api/docs`);
      for (const line of publicUrlNotice(base)) out(`  ${line}`);
      for (const line of proxyNotice(config)) out(`  ${line}`);
      out("");
    }
  } catch (err) {
    await rt.close();
    throw err;
  }
  // Last started, first stopped: the HTTP server, then training, then the trainer lock, then the
  // projector (drained) and the database in rt.close().
  return stopOnce([...[...stops].reverse(), () => rt.close()]);
}
