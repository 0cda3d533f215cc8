import { createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { DataDirLockedError, openDb, rowsOf } from "@feedlab/sql";
import type { Config } from "../../config.ts";
import { writeBackup } from "../../db/backup.ts";
import { controlSocketPath } from "../../db/control.ts";
import { type Command, out, tableProgress, UsageError } from "../command.ts";

const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export const backup: Command = {
  name: "backup",
  usage: "backup FILE",
  summary: [
    "Write a consistent backup of the whole database to FILE, also",
    "while the service runs (embedded or PostgreSQL)",
  ],
  run: async (args: string[], config: Config) => {
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
  },
};

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
