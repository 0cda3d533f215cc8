import { VERSION } from "../../db/release.ts";
import { type Command, out } from "../command.ts";

/** Where the help's descriptions start, after the two spaces before each command. */
const USAGE_WIDTH = 43;
const INDENT = " ".repeat(2 + USAGE_WIDTH);

/** `feedlab help`: every command of the table, its usage and what it does. */
function helpText(commands: readonly Command[]): string {
  const rows = commands.flatMap(({ usage, summary }) => {
    const [first = "", ...more] = summary;
    const head =
      usage.length < USAGE_WIDTH
        ? [`  ${usage.padEnd(USAGE_WIDTH)}${first}`]
        : [`  ${usage}`, `${INDENT}${first}`];
    return [...head, ...more.map((line) => `${INDENT}${line}`)];
  });
  return `feedlab ${VERSION}: run user studies on video feeds

Usage: feedlab <command> [options]

Commands:
${rows.join("\n")}

Configuration comes from the environment: PORT, HOST, FEEDLAB_DATA_DIR, DATABASE_URL, KAFKA_BROKERS,
FEEDLAB_ADMIN_USERNAME, FEEDLAB_ADMIN_PASSWORD, FEEDLAB_DEMO (see README.md).
`;
}

/** The help as a command of `commands` (the table it is part of); it needs no configuration. */
export function helpCommand(commands: () => readonly Command[]) {
  return {
    name: "help",
    usage: "help",
    summary: ["Show this help"],
    run: async () => {
      out(helpText(commands()));
    },
  } satisfies Command;
}
