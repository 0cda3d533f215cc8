import { openDb } from "@feedlab/sql";
import type { Config } from "../../config.ts";
import { migrate as applyMigrations } from "../../db/db.ts";
import { type Command, out } from "../command.ts";

export const migrate: Command = {
  name: "migrate",
  usage: "migrate",
  summary: ["Apply pending database migrations and exit"],
  run: async (_args: string[], config: Config) => {
    const { db, kind, close } = openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    try {
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
