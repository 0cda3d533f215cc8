#!/usr/bin/env node
// Launcher for the `feedlab` CLI. Feedlab runs on Node 24 (it executes TypeScript directly); when an
// older node starts this file, re-run it with the project's own Node 24 (the `node` devDependency).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const major = Number(process.versions.node.split(".")[0]);

if (major < 24) {
  const local = path.join(root, "node_modules", "node", "bin", "node");
  if (!existsSync(local)) {
    console.error(
      `Feedlab needs Node 24 or newer (this is ${process.version}). Run \`npm install\` in ${root} first.`,
    );
    process.exit(1);
  }
  const r = spawnSync(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
} else {
  const { main } = await import("../api/src/cli/cli.ts");
  await main(process.argv.slice(2));
}
