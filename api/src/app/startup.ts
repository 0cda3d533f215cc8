import type { Logger } from "pino";
import { ensureFirstAdmin } from "../auth/first-admin.ts";
import type { Config } from "../config.ts";
import { VERSION } from "../db/release.ts";
import { seedDemo } from "../demo/seed.ts";
import { effectivePublicUrl, publicUrlNotice } from "../settings/public-url.ts";
import { proxyNotice } from "./proxy-notice.ts";
import type { Runtime } from "./runtime.ts";

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

/** The start-up writes of an API process: the first admin, and the demo study (unless FEEDLAB_DEMO=0). */
export function startupWrites(rt: Runtime, config: Config, log: Logger) {
  return underStartupLock(rt, async () => ({
    admin: await ensureFirstAdmin(rt.services.auth, config.adminUsername, config.adminPassword),
    demo: config.demo ? await seedDemo({ db: rt.db, log, ...rt.services }) : null,
  }));
}

export type StartupWrites = Awaited<ReturnType<typeof startupWrites>>;

/** The banner `feedlab start` prints once the server listens on `port`: where to go and how to sign in. */
export function printBanner(
  out: (line: string) => void,
  rt: Runtime,
  config: Config,
  port: number,
  { admin, demo }: StartupWrites,
) {
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
