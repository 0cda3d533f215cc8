import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import cliProgress from "cli-progress";
import { openChangeBus, openStore } from "../../app/clients.ts";
import type { ChangeBus } from "../../changes/change-bus.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { importVideos, parseImport } from "../../videos/videos.import.ts";
import { createVideosService } from "../../videos/videos.service.ts";
import { type Command, out, UsageError } from "../command.ts";

export const videos: Command = {
  name: "videos",
  usage: "videos import FILE [--format csv|json]",
  summary: ["Import videos from a CSV or JSON file"],
  run: async (args: string[], config: Config) => {
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
    let changes: ChangeBus;
    try {
      changes = await openChangeBus(config, log, store);
    } catch (e) {
      await store.close();
      throw e;
    }
    try {
      const videos = createVideosService({
        ...store.deps,
        onChange: (change) => void changes.publish(change),
      });
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
  },
};
