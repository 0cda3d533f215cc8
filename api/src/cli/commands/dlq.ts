import { parseArgs } from "node:util";
import { listDeadLetters, redriveDeadLetters } from "@feedlab/projector";
import { openEventLog, openStore } from "../../app/clients.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, err, out, UsageError } from "../command.ts";

export const dlq: Command = {
  name: "dlq",
  usage: "dlq [list|redrive]",
  summary: [
    "List the records the projector could not apply (dead letters),",
    "or, after a fix, apply them again from the log",
  ],
  run: async (args: string[], config: Config) => {
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
  },
};
