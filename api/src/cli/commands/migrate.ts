import { parseArgs } from "node:util";
import { openDb } from "@feedlab/sql";
import type { Config } from "../../config.ts";
import { migrate as applyMigrations } from "../../db/db.ts";
import { refuseNewerSchema, VERSION } from "../../db/release.ts";
import { type Command, out, UsageError } from "../command.ts";

export const migrate: Command = {
  name: "migrate",
  usage: "migrate [--dry-run]",
  summary: [
    "Apply pending database migrations and exit",
    "--dry-run: list what a start would apply, changing nothing",
  ],
  run: async (args: string[], config: Config) => {
    let dryRun: boolean;
    try {
      dryRun = parseArgs({ args, options: { "dry-run": { type: "boolean" } } }).values["dry-run"] === true;
    } catch (e) {
      throw new UsageError(`${(e as Error).message}\nUsage: feedlab ${migrate.usage}`);
    }
    const { db, kind, close } = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
      if (dryRun) {
        const state = await refuseNewerSchema(db);
        const by = state.newest ? `, last migrated by Feedlab ${state.newest}` : "";
        out(
          state.pending.length > 0
            ? `Feedlab ${VERSION} would apply ${state.pending.length} migration(s) on ${kind}${by}:\n${state.pending
                .map((name) => `  ${name}`)
                .join("\n")}\nNothing was changed.`
            : `Database (${kind}${by}) is up to date with Feedlab ${VERSION}: a start applies nothing.`,
        );
        return;
      }
      const applied = await applyMigrations(db);
      out(
        applied.length > 0
          ? `Applied ${applied.length} migration(s) on ${kind}: ${applied.join(", ")}`
          : `Database (${kind}) is up to date.`,
      );
    } finally {
      await close();
    }
  },
};
