import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../test/harness/database.ts";
import { holdLeadership } from "./leader.ts";

const until = async (check: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
};

describe("trainer leadership", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("lets one trainer lead at a time and hands over when the leader stops", async () => {
    const logger = pino({ level: "silent" });
    const first = holdLeadership({ databaseUrl: db.url, logger, retryMs: 100 });
    expect(await until(() => first.isLeader(), 5000)).toBe(true);
    const second = holdLeadership({ databaseUrl: db.url, logger, retryMs: 100 });
    await new Promise((r) => setTimeout(r, 400));
    expect(second.isLeader()).toBe(false);
    await first.stop();
    expect(await until(() => second.isLeader(), 5000)).toBe(true);
    await second.stop();
  });

  it("leads at once on the embedded database, which is single-process", async () => {
    const only = holdLeadership({ databaseUrl: null, logger: pino({ level: "silent" }) });
    expect(only.isLeader()).toBe(true);
    await only.stop();
  });
});
