import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import { isUuid } from "@feedlab/schemas";
import type { Config } from "../../config.ts";
import { unzipTo } from "../../packages/unzip.ts";
import { AdminClient, RemoteError, serverUrl } from "../admin-client.ts";
import { type Command, err, out, UsageError } from "../command.ts";

/** A failure the server or the network explains: its message, and exit code 1. */
function reported(e: unknown): undefined {
  if (!(e instanceof RemoteError)) throw e;
  err(e.message);
  process.exitCode = 1;
  return undefined;
}

export const packageCommand: Command = {
  name: "package",
  usage: "package ID DIR [--pseudonymize] [--url URL]",
  summary: [
    "Write an experiment's replication package into DIR: tables",
    "as CSV and Parquet with datapackage.json, study.yaml,",
    "stats.json, codebook.md and analysis.py (docs/packages.md),",
    "from the server at --url (default this one's PORT on",
    "127.0.0.1). Admin from FEEDLAB_ADMIN_USERNAME/_PASSWORD",
  ],
  run: async (args: string[], config: Config) => {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { url: { type: "string" }, pseudonymize: { type: "boolean" } },
    });
    const [id, dir] = positionals;
    if (!id || !dir || positionals.length > 2)
      throw new UsageError("Usage: feedlab package ID DIR [--pseudonymize] [--url URL]");
    if (!isUuid(id)) throw new UsageError("ID must be an experiment id");
    const client = await (async () => AdminClient.signIn(serverUrl(values.url, config), config))().catch(
      reported,
    );
    if (!client) return;
    try {
      const query = values.pseudonymize === true ? "?pseudonymize=true" : "";
      const zip = await client.stream(`/api/v1/admin/experiments/${id}/package${query}`);
      await mkdir(dir, { recursive: true });
      // The zip is read from its end (its central directory): it is saved whole first.
      const zipPath = path.join(dir, `.feedlab-package-${randomBytes(4).toString("hex")}.zip`);
      try {
        await pipeline(zip, createWriteStream(zipPath));
        const names = await unzipTo(zipPath, dir);
        for (const name of names) out(path.join(dir, name));
        err(`Wrote ${names.length} files of the package of experiment ${id} into ${dir}`);
      } finally {
        await rm(zipPath, { force: true });
      }
    } catch (e) {
      reported(e);
    } finally {
      await client.close();
    }
  },
};
