import { LogUnavailableError } from "@feedlab/ingest";
import { LogIncompleteError } from "@feedlab/projector";
import { DataDirLockedError } from "@feedlab/sql";
import { type Config, ConfigError, loadConfig } from "../config.ts";
import { BackupError } from "../db/backup.ts";
import { SchemaNewerError, VERSION } from "../db/release.ts";
import { HttpError } from "../http/errors.ts";
import { RemoteError } from "./admin-client.ts";
import { type Command, err, out, UsageError } from "./command.ts";
import { admin } from "./commands/admin.ts";
import { backup } from "./commands/backup.ts";
import { dlq } from "./commands/dlq.ts";
import { helpCommand } from "./commands/help.ts";
import { migrate } from "./commands/migrate.ts";
import { packageCommand } from "./commands/package.ts";
import { replay } from "./commands/replay.ts";
import { restore } from "./commands/restore.ts";
import { simulate } from "./commands/simulate.ts";
import { start } from "./commands/start.ts";
import { study } from "./commands/study.ts";
import { tail } from "./commands/tail.ts";
import { videos } from "./commands/videos.ts";

const help = helpCommand(() => COMMANDS);

/** Every `feedlab` command, in the order `feedlab help` lists them. */
const COMMANDS: readonly Command[] = [
  start,
  migrate,
  admin,
  videos,
  tail,
  replay,
  dlq,
  backup,
  restore,
  simulate,
  study,
  packageCommand,
  help,
];

export async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  // The help and the version need no configuration.
  if (!name || name === help.name || name === "--help" || name === "-h") return help.run();
  if (name === "--version" || name === "-v") {
    out(VERSION);
    return;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      err(e.message);
      process.exit(2);
    }
    throw e;
  }
  try {
    const command = COMMANDS.find((c) => c.name === name);
    if (!command) throw new UsageError(`Unknown command "${name}". Run \`feedlab help\`.`);
    return await command.run(args, config);
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message);
      process.exit(2);
    }
    // Failures whose message tells the user what to do: no stack trace.
    if (
      e instanceof LogIncompleteError ||
      e instanceof LogUnavailableError ||
      e instanceof BackupError ||
      e instanceof RemoteError ||
      e instanceof DataDirLockedError ||
      e instanceof SchemaNewerError
    ) {
      err(e.message);
      process.exit(1);
    }
    if (e instanceof HttpError) {
      err(`${e.code}: ${e.message}`);
      process.exit(1);
    }
    if ((e as { code?: string }).code === "EADDRINUSE") {
      err(`Port ${config.port} is already in use. Set PORT to another port.`);
      process.exit(1);
    }
    throw e;
  }
}
