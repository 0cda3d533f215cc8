import { chmodSync, rmSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Db } from "@feedlab/sql";
import type { Logger } from "pino";
import { writeBackup } from "./backup.ts";

/**
 * The embedded database belongs to the process that runs it (PGlite is single-process), so tools
 * that need it while the service runs ask that process: over a Unix socket in the data folder,
 * readable by the folder's owner only. `GET /backup` streams a backup (`feedlab backup`).
 */
export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, "feedlab.sock");
}

export async function startControlSocket(db: Db, dataDir: string, log: Logger): Promise<() => Promise<void>> {
  const socketPath = controlSocketPath(dataDir);
  // Unix socket paths are short (108 bytes on Linux): a deeper folder gets no socket.
  if (Buffer.byteLength(socketPath) > 100) {
    log.warn(
      { socketPath },
      "data folder path too long for the control socket: `feedlab backup` needs the service stopped",
    );
    return async () => {};
  }
  rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" || req.url !== "/backup") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/gzip" });
    writeBackup(db, res, { database: "pglite" }).catch((err: unknown) => {
      log.error({ err }, "backup failed");
      res.destroy(err as Error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(socketPath, { force: true });
  };
}
