import { parseArgs } from "node:util";
import { ROLES, type Role, start as startRoles } from "../../app/roles.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, out, UsageError } from "../command.ts";

export const start: Command = {
  name: "start",
  usage: "start [--role api|projector|trainer|all]",
  summary: ["Run the service (default role: all)"],
  run: async (args: string[], config: Config) => {
    const { values } = parseArgs({ args, options: { role: { type: "string", default: "all" } } });
    const role = values.role as Role;
    if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
    const log = createLogger(config.logLevel, config.logFormat);
    const stop = await startRoles(config, log, role, out);
    const shutdown = async (signal: string) => {
      log.info({ signal }, "shutting down");
      await stop();
      process.exit(0);
    };
    process.once("SIGINT", () => void shutdown("SIGINT"));
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
    // Keep the process alive for roles without a server.
    setInterval(() => {}, 1 << 30);
  },
};
