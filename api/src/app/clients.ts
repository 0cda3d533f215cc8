import { randomUUID } from "node:crypto";
import type { LookupFunction } from "node:net";
import { createEmbeddedLog, createKafkaLog, type EventLog } from "@feedlab/ingest";
import { applyInThread, createProjector, DEFAULT_CONSUMER, runRequestedRebuilds } from "@feedlab/projector";
import { type DbKind, openDb } from "@feedlab/sql";
import type { Logger } from "pino";
import type { buildConnector } from "undici";
import { type ChangeBus, createLocalChangeBus, createPgChangeBus } from "../changes/change-bus.ts";
import type { Config } from "../config.ts";
import { migrate } from "../db/db.ts";
import { VERSION } from "../db/release.ts";
import type { ServiceDeps } from "../deps.ts";
import { folderMediaStore, type MediaStore } from "../media/media-store.ts";
import { s3MediaStore } from "../media/s3-store.ts";
import type { AddressPolicy } from "../recommenders/external-http/addresses.ts";
import { createExternalHttpClient } from "../recommenders/external-http/client.ts";

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
      client: config.kafkaClient,
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
export async function openChangeBus(config: Config, log: Logger, store: Store): Promise<ChangeBus> {
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
 * The projector of a process (roles `projector` and `all`), created but not started: `start` runs
 * the rebuilds an admin requested, then consumes the log; `close` drains it (when started).
 * `besideHttp`: the process also serves HTTP. The embedded database runs one session at a time, and a
 * batch's transaction holds it: there a batch's statements are sent from a thread of their own rather
 * than between HTTP requests.
 */
export function openProjector(
  store: Store,
  eventLog: EventLog,
  log: Logger,
  options: { besideHttp: boolean },
) {
  const logger = log.child({ role: "projector" });
  const multiProcess = store.dbKind === "postgres";
  const batchThread =
    options.besideHttp && store.dbKind === "pglite"
      ? applyInThread({ link: store.link }, { consumer: DEFAULT_CONSUMER, multiProcess }, logger)
      : null;
  const projector = createProjector({
    db: store.db,
    log: eventLog,
    logger,
    multiProcess,
    applyBatch: batchThread?.apply,
  });
  let projecting = false;
  return {
    projector,
    start: async () => {
      await runRequestedRebuilds({ db: store.db, log: eventLog, logger, multiProcess });
      projecting = true;
      batchThread?.start();
      projector.start();
    },
    close: async () => {
      if (projecting) await projector.stop();
      await batchThread?.close();
    },
  };
}

/**
 * One outbound HTTP pool for every external recommender, connecting only where `policy` allows.
 * `lookup`: its DNS lookup; `connector`: what opens its connections (tests simulate and record them).
 */
export function openExternalHttp(
  config: Config,
  policy: AddressPolicy,
  outbound: { lookup?: LookupFunction; connector?: buildConnector.connector } = {},
) {
  return createExternalHttpClient({
    connections: config.recommenderConnections,
    policy,
    ...(outbound.lookup ? { lookup: outbound.lookup } : {}),
    ...(outbound.connector ? { connector: outbound.connector } : {}),
    userAgent: `feedlab/${VERSION}`,
  });
}

/** Uploaded videos, captions and thumbnails (FEEDLAB_MEDIA_DIR, or an S3-compatible bucket). */
export function openMedia(config: Config): MediaStore & { close?: () => void } {
  return config.mediaS3 ? s3MediaStore(config.mediaS3) : folderMediaStore(config.mediaDir);
}
