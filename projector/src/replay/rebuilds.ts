import type { EventLog } from "@feedlab/ingest";
import type { Knex } from "knex";
import type { Logger } from "pino";
import { replay } from "./replay.ts";

/** Replays the projections whose rebuild was requested, then forgets the requests. */
export async function runRequestedRebuilds(options: {
  db: Knex;
  log: Pick<EventLog, "scan" | "position" | "firstOffsets">;
  logger: Logger;
  multiProcess: boolean;
}): Promise<string[]> {
  const names = (
    (await options.db("projector_rebuilds").select("projection")) as { projection: string }[]
  ).map((r) => r.projection);
  if (names.length === 0) return [];
  options.logger.info({ projections: names }, "rebuilding read models that this release added");
  await replay({
    db: options.db,
    log: options.log,
    logger: options.logger,
    only: names,
    multiProcess: options.multiProcess,
    // A new read model is built from what the log still holds rather than not at all.
    onIncomplete: (err) =>
      options.logger.error({ err }, "building the new read models from an incomplete log"),
  });
  await options.db("projector_rebuilds").whereIn("projection", names).delete();
  return names;
}
