#!/usr/bin/env node
// Launcher for the `feedlab` CLI. Feedlab runs on Node 24 (it executes TypeScript directly); when an
// older node starts this file, re-run it with the project's own Node 24 (the `node` devDependency).
// `feedlab start` runs under the server's V8 settings and environment, and any command of a Kafka deployment without
// kafkajs's spurious timer warning (bin/node-settings.mjs): the launcher replaces itself with a Node
// that has those flags (same process id, so signals and exit codes are unchanged).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  COMPILE_CACHE_DIR,
  kafkaFlags,
  missingEnv,
  missingFlags,
  SERVER_ENV,
  SERVER_V8_FLAGS,
} from "./node-settings.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const major = Number(process.versions.node.split(".")[0]);
const self = fileURLToPath(import.meta.url);
const args = process.argv.slice(2);
const v8Flags = missingFlags([...(args[0] === "start" ? SERVER_V8_FLAGS : []), ...kafkaFlags()]);
// Read by the C library when the process starts: set for the Node that runs the command.
const env = args[0] === "start" ? missingEnv(SERVER_ENV) : {};
const restart = v8Flags.length > 0 || Object.keys(env).length > 0;

if (major < 24) {
  const local = path.join(root, "node_modules", "node", "bin", "node");
  if (!existsSync(local)) {
    console.error(
      `Feedlab needs Node 24 or newer (this is ${process.version}). Run \`npm install\` in ${root} first.`,
    );
    process.exit(1);
  }
  const r = spawnSync(local, [...v8Flags, self, ...args], {
    stdio: "inherit",
    env: { ...process.env, ...env },
  });
  process.exit(r.status ?? 1);
} else if (restart && typeof process.execve === "function") {
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...v8Flags, self, ...args], {
    ...process.env,
    ...env,
  });
} else {
  module.enableCompileCache?.(COMPILE_CACHE_DIR);
  // Worker threads (PGlite, the Parquet encoder, the trainer's compute pool) do not inherit the
  // call above, but read the variable: with it they skip the TypeScript stripper (about 17 MB each).
  process.env.NODE_COMPILE_CACHE ??= COMPILE_CACHE_DIR;
  const { main } = await import("../api/src/cli/cli.ts");
  await main(args);
}
