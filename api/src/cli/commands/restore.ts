import { createReadStream, existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { openDb } from "@feedlab/sql";
import type { Config } from "../../config.ts";
import { restoreBackup } from "../../db/backup.ts";
import { type Command, out, tableProgress, UsageError } from "../command.ts";

export const restore: Command = {
  name: "restore",
  usage: "restore FILE",
  summary: ["Restore a backup into an empty data folder or database"],
  run: async (args: string[], config: Config) => {
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
  },
};
