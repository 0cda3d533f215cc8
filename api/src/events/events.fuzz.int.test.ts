import { EVENT_TYPES, type EventType, EXAMPLE_PAYLOADS } from "@feedlab/schemas";
import { mulberry32 } from "@feedlab/trainer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { type Joined, joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

/** A seeded PRNG, so a failing case can be reproduced. */
const prng = mulberry32;

type Mutation = (e: Record<string, unknown>, r: () => number) => unknown;
const pick = <T>(xs: readonly T[], r: () => number): T => xs[Math.floor(r() * xs.length)] as T;
const deep = (n: number): unknown => (n === 0 ? "leaf" : { d: deep(n - 1) });
const WRONG_VALUES: unknown[] = [null, true, 0, -1, 1e308, "", "text", [], {}, [1, "a"], { a: { b: 1 } }];

const MUTATIONS: Mutation[] = [
  (e) => e, // valid
  (e, r) => {
    const p = { ...(e.payload as Record<string, unknown>) };
    const keys = Object.keys(p);
    if (keys.length > 0) delete p[pick(keys, r)];
    return { ...e, payload: p };
  },
  (e, r) => {
    const p = { ...(e.payload as Record<string, unknown>) };
    const keys = Object.keys(p);
    if (keys.length > 0) p[pick(keys, r)] = pick(WRONG_VALUES, r);
    return { ...e, payload: p };
  },
  (e, r) => ({
    ...e,
    [pick(
      [
        "event_id",
        "timestamp",
        "event_type",
        "video_id",
        "watch_ratio",
        "position_in_feed",
        "payload",
        "seq",
      ],
      r,
    )]: pick(WRONG_VALUES, r),
  }),
  (e, r) => {
    const copy = { ...e };
    delete copy[pick(["event_id", "timestamp", "event_type"], r)];
    return copy;
  },
  (e) => ({ ...e, event_type: "VIDEO_START" }),
  (e, r) => ({
    ...e,
    event_type: pick(["VIDEO_END", "video_play", "CLICK", "", "SESSION_START ", "x".repeat(80)], r),
  }),
  (e, r) => ({ ...e, payload: { ...(e.payload as object), huge: "x".repeat(Math.floor(r() * 120_000)) } }),
  (e, r) => ({ ...e, payload: { ...(e.payload as object), nested: deep(Math.floor(r() * 60)) } }),
  (e) => ({ ...e, payload: { ...(e.payload as object), nul: "a\u0000b" } }),
  (e) => ({ ...e, video_id: "\ud83d" }),
  (e) => ({ ...e, unexpected: "field" }),
  () => pick([null, 42, "event", [], true], Math.random),
  (e, r) => ({ ...e, timestamp: pick(["2026-13-45T99:00:00Z", "yesterday", "1700000000", "2026-11-21"], r) }),
];

describe.each(BACKENDS)("intake under 1,000 mutated batches (%s)", (backend) => {
  let app: TestApp;
  let p: Joined;
  beforeAll(async () => {
    app = await startTestApp(backend);
    const admin = await app.admin();
    const study = await createStudy(admin, { videoCount: 3, status: "running", weights: [1] });
    p = await joinWithSession(app.client(), study.experiment.id, "fuzz");
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("never answers 5xx, never stores a rejected event, and never stops the projector", async () => {
    const r = prng(20261121);
    const accepted = new Set<string>();
    const rejected = new Set<string>();
    const statuses = new Map<number, number>();
    for (let b = 0; b < 1000; b++) {
      const size = 1 + Math.floor(r() * 20);
      const events = Array.from({ length: size }, () => {
        const type = pick(EVENT_TYPES, r) as EventType;
        const base = wireEvent(type, { payload: structuredClone(EXAMPLE_PAYLOADS[type]) }) as Record<
          string,
          unknown
        >;
        return pick(MUTATIONS, r)(base, r);
      });
      let body: string | Blob = JSON.stringify({ session_id: p.sessionId, events });
      const shape = r();
      if (shape < 0.03)
        body = body.slice(0, Math.floor(body.length * r())); // truncated JSON
      else if (shape < 0.06)
        body = new Blob([body.slice(0, -3), new Uint8Array([0xc3, 0x28, 0xff]), body.slice(-3)]); // bad UTF-8
      else if (shape < 0.08) body = JSON.stringify({ session_id: p.sessionId, events: "not a list" });
      const res = await fetch(`${p.client.base}/api/v1/events`, {
        method: "POST",
        headers: {
          "content-type": r() < 0.1 ? "text/plain" : "application/json",
          cookie: [...p.client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        },
        body,
      });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      expect(res.status, `batch ${b}`).toBeLessThan(500);
      const reply = (await res.json()) as { rejected?: { index: number }[] };
      const ids = events.map((e) =>
        e !== null && typeof e === "object" ? (e as { event_id?: unknown }).event_id : undefined,
      );
      if (res.status === 202) {
        const bad = new Set((reply.rejected ?? []).map((x) => x.index));
        ids.forEach((id, i) => {
          if (typeof id !== "string") return;
          if (bad.has(i)) rejected.add(id.toLowerCase());
          else accepted.add(id.toLowerCase());
        });
      } else {
        for (const id of ids) if (typeof id === "string") rejected.add(id.toLowerCase());
      }
    }
    // An id both accepted and rejected (a valid copy elsewhere) is stored; the rest of the rejected are not.
    for (const id of accepted) rejected.delete(id);
    expect(statuses.get(202)).toBeGreaterThan(500);
    expect(accepted.size).toBeGreaterThan(500);

    const head = await app.runtime.eventLog.position();
    expect(await app.runtime.progress.waitFor(head, 30_000)).toBe(true);
    const db = app.runtime.db;
    const stored = new Set(
      ((await db("events").select("event_id")) as { event_id: string }[]).map((x) => x.event_id),
    );
    expect([...accepted].filter((id) => !stored.has(id))).toEqual([]);
    expect([...rejected].filter((id) => stored.has(id))).toEqual([]);
    expect(await db("dead_letters").select("reason")).toEqual([]);
    expect(() => app.runtime.projector.healthcheck()).not.toThrow();
  }, 180_000);
});
