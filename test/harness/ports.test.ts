import { createServer } from "node:net";
import { describe, expect, test } from "vitest";
import { freePort } from "./ports.ts";

describe("freePort", () => {
  test("returns a port that a server can then bind on 127.0.0.1", async () => {
    const port = await freePort();

    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));

    expect(port).toBeGreaterThan(0);
  });
});
