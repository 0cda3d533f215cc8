import {
  createReadStream,
  createWriteStream,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import http from "node:http";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { type EventLog, eventOf, LogUnavailableError } from "@feedlab/ingest";
import {
  LogIncompleteError,
  listDeadLetters,
  projectionsNamed,
  redriveDeadLetters,
  replay,
} from "@feedlab/projector";
import { EVENT_TYPES, isUuid, type LoggedEvent, parseEventTypes } from "@feedlab/schemas";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "@feedlab/schemas/http/enums.ts";
import cliProgress from "cli-progress";
import { createAuthService } from "../auth/auth.service.ts";
import { generatePassword } from "../auth/passwords.ts";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { BackupError, restoreBackup, writeBackup } from "../db/backup.ts";
import { controlSocketPath } from "../db/control.ts";
import { DataDirLockedError, migrate, openDb, rowsOf } from "../db/db.ts";
import { HttpError } from "../http/errors.ts";
import { createLogger } from "../logger.ts";
import { openChangeBus, openEventLog, openStore, ROLES, type Role, start, VERSION } from "../main.ts";
import { importVideos, parseImport } from "../videos/videos.import.ts";
import { createVideosService } from "../videos/videos.service.ts";

const HELP = `feedlab ${VERSION}: run user studies on video feeds

Usage: feedlab <command> [options]

Commands:
  start [--role api|projector|trainer|all]   Run the service (default role: all)
  migrate                                    Apply pending database migrations and exit
  admin create [--username NAME] [--password PW]
                                             Add an admin (a password is generated when none is given)
  videos import FILE [--format csv|json]     Import videos from a CSV or JSON file
  tail [--from-beginning] [--follow] [--lines N] [--type T,...] [--experiment ID]
                                             Decode the event log to NDJSON on stdout, one event per line
                                             with its partition and offset: the newest N (default 10) of
                                             each partition, all (--from-beginning), then new ones as they
                                             come (--follow, until Ctrl-C). On Kafka it needs only
                                             KAFKA_BROKERS and leaves no consumer group behind
  replay [--projection NAME]                 Rebuild read models from the event log (all, or one: events,
                                             watched, view_counts, interactions, session_activity,
                                             co_views (with watched))
  dlq [list|redrive]                         List the records the projector could not apply (dead letters),
                                             or, after a fix, apply them again from the log
  backup FILE                                Write a consistent backup of the whole database to FILE, also
                                             while the service runs (embedded or PostgreSQL)
  restore FILE                               Restore a backup into an empty data folder or database
  help                                       Show this help

Configuration comes from the environment: PORT, HOST, FEEDLAB_DATA_DIR, DATABASE_URL, KAFKA_BROKERS,
FEEDLAB_ADMIN_USERNAME, FEEDLAB_ADMIN_PASSWORD, FEEDLAB_DEMO (see README.md).
`;

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

class UsageError extends Error {}

async function cmdStart(config: Config, args: string[]) {
  const { values } = parseArgs({ args, options: { role: { type: "string", default: "all" } } });
  const role = values.role as Role;
  if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  const log = createLogger(config.logLevel, config.logFormat);
  const stop = await start(config, log, role, out);
  const shutdown = async (signal: string) => {
    log.info({ signal }, "shutting down");
    await stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  // Keep the process alive for roles without a server.
  setInterval(() => {}, 1 << 30);
}

async function cmdMigrate(config: Config) {
  const { db, kind, close } = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await migrate(db);
    out(
      applied.length > 0
        ? `Applied ${applied.length} migration(s) on ${kind}: ${applied.join(", ")}`
        : `Database (${kind}) is up to date.`,
    );
  } finally {
    await close();
  }
}

async function cmdAdmin(config: Config, args: string[]) {
  const [sub, ...rest] = args;
  if (sub !== "create") throw new UsageError("Usage: feedlab admin create [--username NAME] [--password PW]");
  const { values } = parseArgs({
    args: rest,
    options: { username: { type: "string" }, password: { type: "string" } },
  });
  const username = values.username ?? config.adminUsername;
  if (!new RegExp(ADMIN_USERNAME_PATTERN).test(username))
    throw new UsageError("--username must be 1-64 characters of letters, digits, . _ @ -");
  if (values.password !== undefined && values.password.length < ADMIN_PASSWORD_MIN_LENGTH)
    throw new UsageError(`--password must be at least ${ADMIN_PASSWORD_MIN_LENGTH} characters`);
  const store = await openStore(config, createLogger("warn", config.logFormat));
  try {
    const auth = createAuthService(store.deps);
    if (await auth.adminExists(username))
      throw new UsageError(`An admin named "${username}" already exists.`);
    const password = values.password ?? generatePassword();
    await auth.createAdmin(username, password);
    out(`Created admin "${username}".`);
    if (!values.password) out(`Password: ${password}   (shown only this once)`);
  } finally {
    await store.close();
  }
}

async function cmdVideos(config: Config, args: string[]) {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { format: { type: "string" }, update: { type: "boolean" } },
  });
  const file = positionals[0];
  if (sub !== "import" || !file)
    throw new UsageError("Usage: feedlab videos import FILE [--format csv|json] [--update]");
  const format = values.format ?? (path.extname(file).toLowerCase() === ".json" ? "json" : "csv");
  if (format !== "csv" && format !== "json") throw new UsageError("--format must be csv or json");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`Cannot read ${file}: ${(e as Error).message}`);
  }
  const log = createLogger("warn", config.logFormat);
  const store = await openStore(config, log);
  // API processes drop the pools they cached when told (on PostgreSQL, through LISTEN/NOTIFY).
  let changes: Awaited<ReturnType<typeof openChangeBus>>;
  try {
    changes = await openChangeBus(config, log, store);
  } catch (e) {
    await store.close();
    throw e;
  }
  try {
    const videos = createVideosService({ ...store.deps, onChange: (change) => void changes.publish(change) });
    const parsed = parseImport(text, format);
    const bar = new cliProgress.SingleBar(
      {
        format: "Importing [{bar}] {percentage}% | {value}/{total} rows",
        hideCursor: true,
        noTTYOutput: true,
        notTTYSchedule: 1000,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(parsed.rows.length, 0);
    const summary = await importVideos(videos, parsed.rows, {
      onProgress: (done) => bar.update(done),
      update: values.update === true,
    });
    bar.stop();
    out(
      `${summary.imported} imported, ${summary.updated} updated, ${summary.rejected.length} rejected (of ${parsed.rows.length} rows).`,
    );
    for (const r of summary.rejected.slice(0, 50)) {
      out(`  row ${r.row}${r.external_id ? ` (${r.external_id})` : ""}: ${r.code}: ${r.message}`);
    }
    if (summary.rejected.length > 50) out(`  ... and ${summary.rejected.length - 50} more`);
    if (summary.imported + summary.updated === 0 && summary.rejected.length > 0) process.exitCode = 1;
  } finally {
    await changes.stop();
    await store.close();
  }
}

async function cmdReplay(config: Config, args: string[]) {
  const { values } = parseArgs({ args, options: { projection: { type: "string", multiple: true } } });
  const log = createLogger("warn", config.logFormat);
  const store = await openStore(config, log);
  let eventLog: EventLog;
  try {
    eventLog = await openEventLog(config, log, store);
  } catch (e) {
    await store.close();
    throw e;
  }
  try {
    const only = values.projection ?? [];
    try {
      projectionsNamed(only);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const head = await eventLog.position();
    const total = [...head.values()].reduce((a, o) => a + o + 1, 0);
    const bar = new cliProgress.SingleBar(
      {
        format: "Replaying [{bar}] {percentage}% | {value}/{total} records",
        hideCursor: true,
        noTTYOutput: true,
        notTTYSchedule: 1000,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(total, 1), 0);
    const started = performance.now();
    const result = await replay({
      db: store.db,
      log: eventLog,
      logger: log,
      multiProcess: store.dbKind === "postgres",
      only,
      onProgress: (done) => bar.update(Math.min(done, total)),
    });
    bar.update(Math.max(total, 1));
    bar.stop();
    const secs = (performance.now() - started) / 1000;
    out(`Replayed ${result.records} records into ${result.projections.join(", ")} in ${secs.toFixed(1)} s.`);
  } finally {
    await eventLog.close();
    await store.close();
  }
}

async function cmdDlq(config: Config, args: string[]) {
  const [sub = "list", ...rest] = args;
  const { values } = parseArgs({ args: rest, options: { consumer: { type: "string" } } });
  if (sub !== "list" && sub !== "redrive") throw new UsageError("Usage: feedlab dlq [list|redrive]");
  const log = createLogger("warn", config.logFormat, "stderr");
  const store = await openStore(config, log);
  try {
    if (sub === "list") {
      const letters = await listDeadLetters(store.db, values.consumer);
      if (letters.length === 0) {
        out("No dead letters: every record in the log was applied.");
        return;
      }
      for (const d of letters)
        out(
          `${d.created_at}  partition ${d.partition} offset ${d.offset}  ${d.event_id ?? "-"}  ${d.reason}`,
        );
      out(`${letters.length} dead letter(s). After fixing their cause, run: feedlab dlq redrive`);
      return;
    }
    const eventLog = await openEventLog(config, log, store);
    try {
      const result = await redriveDeadLetters({
        db: store.db,
        log: eventLog,
        multiProcess: store.dbKind === "postgres",
        ...(values.consumer ? { consumer: values.consumer } : {}),
        onProgress: (done, total) => {
          if (done === total || done % 100 === 0) err(`  ${done}/${total}`);
        },
      });
      out(
        `Re-drove ${result.resolved + result.failing.length} dead letter(s): ${result.resolved} applied, ${result.failing.length} still failing.`,
      );
      for (const f of result.failing.slice(0, 20))
        out(`  partition ${f.partition} offset ${f.offset}: ${f.reason}`);
      if (result.failing.length > 0) process.exitCode = 1;
    } finally {
      await eventLog.close();
    }
  } finally {
    await store.close();
  }
}

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Backup and restore progress on stderr: a line when a table starts, then every 100,000 rows. */
function tableProgress(): (table: string, rows: number) => void {
  let shown = "";
  return (table, rows) => {
    if (table !== shown || rows % 100_000 === 0) err(`  ${table}: ${rows} rows`);
    shown = table;
  };
}

async function cmdBackup(config: Config, args: string[]) {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError("Usage: feedlab backup FILE");
  // Written beside, then renamed: a backup cut short never looks like a finished one.
  const partial = `${file}.partial`;
  const started = performance.now();
  try {
    let summary: string;
    let opened: ReturnType<typeof openDb> | null = null;
    try {
      opened = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
    } catch (e) {
      if (!(e instanceof DataDirLockedError)) throw e;
    }
    if (opened) {
      try {
        const hasSchema = rowsOf<{ n: string | number }>(
          await opened.db.raw("select count(*) as n from pg_tables where tablename = 'knex_migrations'"),
        );
        if (Number(hasSchema[0]?.n ?? 0) === 0)
          throw new UsageError("Nothing to back up: the database holds no Feedlab data yet.");
        const result = await writeBackup(opened.db, createWriteStream(partial), {
          database: opened.kind,
          onProgress: tableProgress(),
        });
        summary = `${result.tables} tables, ${result.rows} rows`;
      } finally {
        await opened.close();
      }
    } else {
      // The service holds the embedded database: it writes the backup itself.
      summary = await backupThroughService(config.dataDir, partial);
    }
    renameSync(partial, file);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    out(`Backed up ${summary} to ${file} (${megabytes(statSync(file).size)}) in ${secs} s.`);
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  }
}

function backupThroughService(dataDir: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath: controlSocketPath(dataDir), path: "/backup" }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`The running service refused the backup (HTTP ${res.statusCode}).`));
        return;
      }
      const sink = createWriteStream(file);
      res.on("aborted", () => reject(new Error("The running service stopped writing the backup.")));
      pipeline(res, sink).then(() => resolve("the running service's database"), reject);
    });
    req.on("error", (e) =>
      reject(
        new Error(
          `The embedded database is in use and its service could not be asked for a backup (${e.message}). Stop it and run the backup again.`,
        ),
      ),
    );
  });
}

async function cmdRestore(config: Config, args: string[]) {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError("Usage: feedlab restore FILE");
  if (!existsSync(file)) throw new UsageError(`No such file: ${file}`);
  const started = performance.now();
  const opened = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 2 });
  try {
    const result = await restoreBackup(opened.db, () => createReadStream(file), {
      onProgress: tableProgress(),
    });
    const where = opened.kind === "pglite" ? `the data folder ${config.dataDir}` : "PostgreSQL";
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    out(
      `Restored ${result.tables} tables, ${result.rows} rows (backup of ${result.createdAt}) into ${where} in ${secs} s.`,
    );
  } finally {
    await opened.close();
  }
}

async function cmdTail(config: Config, args: string[]) {
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
    throw new UsageError(`Unknown event type ${parsed.unknown.join(", ")}. Known: ${EVENT_TYPES.join(", ")}`);
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
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...args] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    out(HELP);
    return;
  }
  if (command === "--version" || command === "-v") {
    out(VERSION);
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(e.message);
      process.exit(2);
    }
    throw e;
  }
  try {
    switch (command) {
      case "start":
        return await cmdStart(config, args);
      case "migrate":
        return await cmdMigrate(config);
      case "admin":
        return await cmdAdmin(config, args);
      case "videos":
        return await cmdVideos(config, args);
      case "replay":
        return await cmdReplay(config, args);
      case "tail":
        return await cmdTail(config, args);
      case "dlq":
        return await cmdDlq(config, args);
      case "backup":
        return await cmdBackup(config, args);
      case "restore":
        return await cmdRestore(config, args);
      default:
        throw new UsageError(`Unknown command "${command}". Run \`feedlab help\`.`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message);
      process.exit(2);
    }
    // Failures whose message tells the user what to do: no stack trace.
    if (
      e instanceof LogIncompleteError ||
      e instanceof LogUnavailableError ||
      e instanceof BackupError ||
      e instanceof DataDirLockedError
    ) {
      err(e.message);
      process.exit(1);
    }
    if (e instanceof HttpError) {
      err(`${e.code}: ${e.message}`);
      process.exit(1);
    }
    if ((e as { code?: string }).code === "EADDRINUSE") {
      err(`Port ${config.port} is already in use. Set PORT to another port.`);
      process.exit(1);
    }
    throw e;
  }
}
