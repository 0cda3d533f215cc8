import { createServer } from "node:net";

/**
 * Asks the kernel for a TCP port that is free on 127.0.0.1 right now.
 *
 * The port is released before it is returned, so another process could take it before the caller
 * binds it: use this only to hand a port to a child process (PostgreSQL, the API) that cannot
 * report its own. In-process servers should `listen(0)` and read back the port instead.
 */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error(`expected a TCP address, got ${String(address)}`));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
