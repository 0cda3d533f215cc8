import type { Config } from "../config.ts";

/** A `feedlab` command: one row of the table `feedlab help` lists and the dispatcher runs (cli.ts). */
export interface Command {
  /** The word after `feedlab`. */
  readonly name: string;
  /** The command and its options, as the help shows them. */
  readonly usage: string;
  /** What it does, as the help shows it: one line each. */
  readonly summary: readonly string[];
  /** Runs with the environment's configuration; sets process.exitCode or throws when it fails. */
  run(args: string[], config: Config): Promise<void>;
}

/** A command line the command cannot run: its message is shown and the exit code is 2. */
export class UsageError extends Error {}

export const out = (line: string) => process.stdout.write(`${line}\n`);
export const err = (line: string) => process.stderr.write(`${line}\n`);

/** Backup and restore progress on stderr: a line when a table starts, then every 100,000 rows. */
export function tableProgress(): (table: string, rows: number) => void {
  let shown = "";
  return (table, rows) => {
    if (table !== shown || rows % 100_000 === 0) err(`  ${table}: ${rows} rows`);
    shown = table;
  };
}
