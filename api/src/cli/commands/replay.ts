import { parseArgs } from "node:util";
import type { EventLog } from "@feedlab/ingest";
import { projectionsNamed, replay as replayLog } from "@feedlab/projector";
import cliProgress from "cli-progress";
import { openEventLog, openStore } from "../../app/clients.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, out, UsageError } from "../command.ts";

export const replay: Command = {
  name: "replay",
  usage: "replay [--projection NAME]",
  summary: [
    "Rebuild read models from the event log (all, or one: events,",
    "watched, view_counts, interactions, session_activity,",
    "co_views (with watched))",
  ],
  run: async (args: string[], config: Config) => {
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
      const result = await replayLog({
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
      out(
        `Replayed ${result.records} records into ${result.projections.join(", ")} in ${secs.toFixed(1)} s.`,
      );
    } finally {
      await eventLog.close();
      await store.close();
    }
  },
};
