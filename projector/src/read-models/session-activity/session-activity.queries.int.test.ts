import { randomUUID } from "node:crypto";
import { PROJECTOR_MIGRATIONS } from "@feedlab/projector";
import { openDb } from "@feedlab/sql";
import type { Knex } from "knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestStorage, type TestStorage } from "../../../../test/harness/storage.ts";
import {
  activeParticipants,
  PARTICIPANT_ACTIVITY_JOIN,
  participantActivity,
  participantCompleteness,
} from "./session-activity.queries.ts";

describe.each(["pglite", "postgres"] as const)("session activity queries (%s)", (backend) => {
  let storage: TestStorage;
  let opened: ReturnType<typeof openDb>;
  const db = () => opened.db;

  beforeAll(async () => {
    storage = await createTestStorage(backend);
    opened = openDb({
      databaseUrl: storage.env.DATABASE_URL ?? null,
      dataDir: storage.env.FEEDLAB_DATA_DIR ?? "",
    });
    for (const m of PROJECTOR_MIGRATIONS) await m.up(opened.db);
    // The api's participants, as much of them as the tests join.
    await opened.db.raw(
      "create table users (id uuid primary key, experiment_id uuid not null, group_id uuid not null)",
    );
  });
  afterAll(async () => {
    await opened?.close();
    await storage?.cleanup();
  });

  /** A participant of `experimentId` in `groupId`. */
  async function participant(experimentId: string, groupId: string): Promise<string> {
    const id = randomUUID();
    await db()("users").insert({ id, experiment_id: experimentId, group_id: groupId });
    return id;
  }

  /** A session of the participant with `events` events, the last of them arrived at `lastAt`. */
  async function session(userId: string, experimentId: string, events: number, lastAt: string) {
    await db()("session_activity").insert({
      session_id: randomUUID(),
      user_id: userId,
      experiment_id: experimentId,
      first_event_at: "2026-11-01T09:00:00Z",
      last_event_at: lastAt,
      last_received_at: lastAt,
      event_count: events,
    });
  }

  /** The two ways a list joins participants' activity: the experiment's aggregate, and per participant. */
  const JOINS = [
    [
      "participantActivity",
      (q: Knex.QueryBuilder, experiment: string) =>
        q.leftJoin(participantActivity(db(), experiment).as("a"), "a.user_id", "u.id"),
    ],
    ["PARTICIPANT_ACTIVITY_JOIN", (q: Knex.QueryBuilder) => q.joinRaw(PARTICIPANT_ACTIVITY_JOIN)],
  ] as const;

  describe("participants' activity", () => {
    it.each(JOINS)(
      "%s sums a participant's events over their sessions with the last arrival, and leaves a participant without sessions null",
      async (_, join) => {
        const experiment = randomUUID();
        const group = randomUUID();
        const busy = await participant(experiment, group);
        const idle = await participant(experiment, group);
        await session(busy, experiment, 14, "2026-11-01T09:05:00Z");
        await session(busy, experiment, 3, "2026-11-02T10:00:00Z");
        const rows = (await join(db()("users as u"), experiment)
          .where("u.experiment_id", experiment)
          .select("u.id", "a.events", "a.last_seen_at")) as {
          id: string;
          events: number | string | null;
          last_seen_at: Date | null;
        }[];
        const byId = new Map(rows.map((r) => [r.id, r]));
        expect(Number(byId.get(busy)?.events)).toBe(17);
        expect(new Date(byId.get(busy)?.last_seen_at ?? 0).toISOString()).toBe("2026-11-02T10:00:00.000Z");
        expect(byId.get(idle)).toEqual({ id: idle, events: null, last_seen_at: null });
      },
    );

    it("participantActivity answers nothing of another experiment's sessions", async () => {
      const experiment = randomUUID();
      const other = randomUUID();
      const someone = await participant(other, randomUUID());
      await session(someone, other, 5, "2026-11-01T09:05:00Z");
      expect(await participantActivity(db(), experiment)).toEqual([]);
    });

    it("PARTICIPANT_ACTIVITY_JOIN counts only the participant's own sessions, not another participant's", async () => {
      const experiment = randomUUID();
      const group = randomUUID();
      const one = await participant(experiment, group);
      const other = await participant(experiment, group);
      await session(one, experiment, 5, "2026-11-01T09:05:00Z");
      await session(other, experiment, 7, "2026-11-01T09:06:00Z");
      const row = (await db()("users as u")
        .joinRaw(PARTICIPANT_ACTIVITY_JOIN)
        .where("u.id", one)
        .first("a.events")) as { events: number | string };
      expect(Number(row.events)).toBe(5);
    });
  });

  describe("activeParticipants", () => {
    it("answers each participant with an event since the time once, however many sessions they have", async () => {
      const experiment = randomUUID();
      const group = randomUUID();
      const twice = await participant(experiment, group);
      const once = await participant(experiment, group);
      const quiet = await participant(experiment, group);
      await session(twice, experiment, 2, "2026-11-01T10:00:00Z");
      await session(twice, experiment, 2, "2026-11-01T10:01:00Z");
      await session(once, experiment, 2, "2026-11-01T10:02:00Z");
      // Before the window: not active.
      await session(quiet, experiment, 2, "2026-11-01T09:54:59Z");
      const rows = await activeParticipants(db(), experiment, new Date("2026-11-01T09:55:00Z"));
      expect(rows.map((r) => r.user_id).sort()).toEqual([twice, once].sort());
    });

    it("answers no one of another experiment, or when no one was active since the time", async () => {
      const experiment = randomUUID();
      const user = await participant(experiment, randomUUID());
      await session(user, experiment, 2, "2026-11-01T09:00:00Z");
      expect(await activeParticipants(db(), experiment, new Date("2026-11-01T10:00:00Z"))).toEqual([]);
      expect(await activeParticipants(db(), randomUUID(), new Date("2026-11-01T08:00:00Z"))).toEqual([]);
    });
  });

  it("sums each participant's sessions and keeps the clock furthest off, the one behind of a tie", async () => {
    const experiment = randomUUID();
    const clocks: Record<string, (number | null)[]> = {
      tie: [-5000, 5000, 3000],
      ahead: [-7000, 5000],
      none: [null, null],
      "one of two": [null, -2000],
      exact: [0],
    };
    const ids = new Map<string, string>();
    for (const [name, offsets] of Object.entries(clocks)) {
      const user = await participant(experiment, randomUUID());
      ids.set(name, user);
      for (const [i, clock_offset_ms] of offsets.entries()) {
        await db()("session_activity").insert({
          session_id: randomUUID(),
          user_id: user,
          experiment_id: experiment,
          first_event_at: "2026-11-01T09:00:00Z",
          last_event_at: "2026-11-01T09:10:00Z",
          last_received_at: "2026-11-01T09:10:00Z",
          event_count: 10 + i,
          seq_count: 8,
          max_seq: i === 0 ? 10 : null,
          clock_offset_ms,
          implausible_times: i,
        });
      }
    }
    const got = new Map((await participantCompleteness(db(), experiment)).map((c) => [c.user_id, c]));
    const offsetOf = (name: string) => got.get(ids.get(name) ?? "")?.clock_offset_ms;
    expect(offsetOf("tie")).toBe(5000);
    expect(offsetOf("ahead")).toBe(-7000);
    expect(offsetOf("none")).toBeNull();
    expect(offsetOf("one of two")).toBe(-2000);
    expect(offsetOf("exact")).toBe(0);
    // Three sessions: 10 + 11 + 12 events, 24 numbered, 2 missing (the first's max_seq 10 less 8).
    expect(got.get(ids.get("tie") ?? "")).toMatchObject({
      sessions: 3,
      events: 33,
      numbered: 24,
      missing: 2,
      implausible_times: 3,
    });
  });
});
