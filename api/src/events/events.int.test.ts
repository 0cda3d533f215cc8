import { randomUUID } from "node:crypto";
import { decodePosition } from "@feedlab/ingest";
import { eventPages } from "@feedlab/projector";
import type { FeedPage, Video } from "@feedlab/schemas";
import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  codeOf,
  EVENT_BACKENDS,
  startTestApp,
  type TestApp,
} from "../../../test/harness/app.ts";
import {
  deliverEvents,
  type Joined,
  joinWithSession,
  sendEvents,
  wireEvent,
} from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";

describe.each(EVENT_BACKENDS)("event intake and read models (%s)", (backend) => {
  let app: TestApp;
  let admin: Client;
  let study: StudyFixture;
  let viewer: Joined;
  beforeAll(async () => {
    app = await startTestApp(backend);
    admin = await app.admin();
    study = await createStudy(admin, { videoCount: 6, status: "running", weights: [1] });
    viewer = await joinWithSession(app.client(), study.experiment.id, "viewer");
  });
  afterAll(async () => {
    await app?.stop();
  });
  const db = () => app.runtime.db;
  const ext = (i: number) => (study.videos[i] as Video).external_id;
  /** Waits until the projector has applied everything appended so far. */
  const settle = async () => {
    const head = await app.runtime.eventLog.position();
    expect(await app.runtime.progress.waitFor(head, 10_000)).toBe(true);
  };

  it("answers 202 with accepted, rejected and a position, keeping valid events of a mixed batch", async () => {
    const good = [wireEvent("PAGE_LOAD"), wireEvent("VIDEO_PLAY", { video_id: ext(0) })];
    const bad = [
      { ...wireEvent("VIDEO_PLAY", { video_id: ext(0) }), event_type: "VIDEO_START" },
      { ...wireEvent("VIDEO_PAUSE"), payload: { currentTime: 1 } },
    ];
    const r = await sendEvents(viewer, [good[0], bad[0], good[1], bad[1]]);
    expect(r.status).toBe(202);
    expect(r.body.accepted).toBe(2);
    expect(r.body.rejected.map((x) => [x.index, x.code])).toEqual([
      [1, "retired_event_type"],
      [3, "missing_field"],
    ]);
    expect(r.body.position).toMatch(/^p1\./);
    await settle();
    const stored = await db()("events")
      .whereIn(
        "event_id",
        [...good, ...bad].map((e) => e.event_id),
      )
      .select("event_id");
    expect(stored.map((s) => s.event_id).sort()).toEqual(good.map((e) => e.event_id).sort());
  });

  it("stamps user, experiment, group, the recommender keys in force and received_at on every event", async () => {
    const e = wireEvent("LIKE", { payload: { videoId: ext(1) } });
    const before = Date.now();
    await deliverEvents(viewer, [e]);
    await settle();
    const row = await db()("events").where({ event_id: e.event_id }).first();
    expect(row).toMatchObject({
      session_id: viewer.sessionId,
      user_id: viewer.userId,
      login_id: "viewer",
      experiment_id: study.experiment.id,
      group_id: study.groups[0]?.id,
      event_type: "LIKE",
      video_id: ext(1),
      algorithm_feed: "recency",
      algorithm_watch: "recency",
    });
    expect(new Date(row.received_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.payload).toEqual({ videoId: ext(1) });
    // A later change of the group's configuration stamps later events only.
    await admin.patch(`/api/v1/admin/groups/${study.groups[0]?.id}`, {
      algorithm_config: { feed: "random", watch: "popularity" },
    });
    const later = wireEvent("PAGE_LOAD");
    await deliverEvents(viewer, [later]);
    await settle();
    expect(
      await db()("events").where({ event_id: later.event_id }).first("algorithm_feed", "algorithm_watch"),
    ).toEqual({
      algorithm_feed: "random",
      algorithm_watch: "popularity",
    });
    expect(
      (await db()("events").where({ event_id: e.event_id }).first("algorithm_feed")).algorithm_feed,
    ).toBe("recency");
    await admin.patch(`/api/v1/admin/groups/${study.groups[0]?.id}`, {
      algorithm_config: { feed: "recency", watch: "recency" },
    });
  });

  it("stamps the UI in force on every event: a preset key, or a template's id with the version shown", async () => {
    const group = `/api/v1/admin/groups/${study.groups[0]?.id}`;
    const uiOf = async (e: { event_id: string }) =>
      db()("events").where({ event_id: e.event_id }).first("ui_feed", "ui_watch");
    const before = wireEvent("PAGE_LOAD");
    await deliverEvents(viewer, [before]);
    const source = (label: string) =>
      `import { FeedSurface } from "@feedlab/surfaces";\nexport default function Page() {\n  return <FeedSurface><p>${label}</p></FeedSurface>;\n}\n`;
    const template = await admin.post<{ id: string }>("/api/v1/admin/ui-templates", {
      name: "Stamped",
      page: "feed",
      template_type: "code",
      source: source("one"),
    });
    expect(template.status).toBe(201);
    const id = template.body.id;
    expect((await admin.patch(group, { ui_config: { feed: id, watch: "none" } })).status).toBe(200);
    const first = wireEvent("PAGE_LOAD");
    await deliverEvents(viewer, [first]);
    // A new version of the template stamps later events with it, at once.
    await admin.patch(`/api/v1/admin/ui-templates/${id}`, { source: source("two") });
    const second = wireEvent("PAGE_LOAD");
    await deliverEvents(viewer, [second]);
    await settle();
    expect(await uiOf(before)).toEqual({ ui_feed: "grid-desktop", ui_watch: "grid-desktop" });
    expect(await uiOf(first)).toEqual({ ui_feed: `${id}@1`, ui_watch: "none" });
    expect(await uiOf(second)).toEqual({ ui_feed: `${id}@2`, ui_watch: "none" });
    const csv = await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/events?format=csv`);
    const row = (parseCsv(csv.text, { columns: true }) as Record<string, string>[]).find(
      (r) => r.event_id === second.event_id,
    );
    expect(row).toMatchObject({
      ui_feed: `${id}@2`,
      ui_watch: "none",
      experiment_id: study.experiment.id,
      ui_feed_name: "Stamped",
      ui_watch_name: "none",
    });
    await admin.patch(group, { ui_config: { feed: "grid-desktop", watch: "grid-desktop" } });
  });

  it("stores a retried batch once", async () => {
    const batch = [wireEvent("VIDEO_PLAY", { video_id: ext(2) }), wireEvent("WINDOW_BLUR")];
    const first = await sendEvents(viewer, batch);
    const again = await sendEvents(viewer, batch);
    expect(again.status).toBe(202);
    expect(again.body.accepted).toBe(2);
    await settle();
    const ids = batch.map((e) => e.event_id);
    expect(Number((await db()("events").whereIn("event_id", ids).count({ n: "*" }).first())?.n)).toBe(2);
    const plays = (await db()("video_view_counts")
      .where({ experiment_id: study.experiment.id, video_id: ext(2) })
      .first("plays")) as {
      plays: string;
    };
    expect(Number(plays.plays)).toBe(1);
    if (backend !== "kafka") {
      // The embedded log itself keeps one copy; Kafka keeps both and the projection stores one.
      expect(again.body.position).toBe(first.body.position);
      expect(Number((await db()("event_log").whereIn("event_id", ids).count({ n: "*" }).first())?.n)).toBe(2);
    }
  });

  it("accepts the player controls and card interactions without video_id, as the spec allows, and stores them with none", async () => {
    const batch = (["VOLUME_CHANGE", "IMPRESSION", "FEED_CLICK", "THUMBNAIL_HOVER"] as const).map((type) => {
      const e: Record<string, unknown> = wireEvent(type);
      delete e.video_id;
      return e;
    });
    const r = await sendEvents(viewer, batch);
    expect([r.status, r.body.accepted, r.body.rejected]).toEqual([202, 4, []]);
    await settle();
    const stored = (await db()("events")
      .whereIn(
        "event_id",
        batch.map((e) => e.event_id as string),
      )
      .select("event_type", "video_id")) as { event_type: string; video_id: string | null }[];
    expect(stored.map((e) => e.video_id)).toEqual([null, null, null, null]);
    // The playback types still need it.
    const play: Record<string, unknown> = wireEvent("VIDEO_PLAY");
    delete play.video_id;
    expect((await sendEvents(viewer, [play])).body.rejected).toMatchObject([
      { code: "missing_field", field: "video_id" },
    ]);
  });

  it("accepts text/plain beacon bodies", async () => {
    const e = wireEvent("PAGE_EXIT");
    const r = await viewer.client.request("POST", "/api/v1/events", {
      body: JSON.stringify({ session_id: viewer.sessionId, events: [e] }),
      contentType: "text/plain;charset=UTF-8",
    });
    expect(r.status).toBe(202);
    await settle();
    expect(await db()("events").where({ event_id: e.event_id }).first("event_type")).toEqual({
      event_type: "PAGE_EXIT",
    });
  });

  it("refuses the whole batch and stores nothing for an unknown or foreign session, a bad envelope or a body over 2 MB", async () => {
    const e = wireEvent("PAGE_LOAD");
    const unknown = await viewer.client.post("/api/v1/events", { session_id: randomUUID(), events: [e] });
    expect(unknown.status).toBe(404);
    const other = await joinWithSession(app.client(), study.experiment.id, "other");
    const foreign = await other.client.post("/api/v1/events", { session_id: viewer.sessionId, events: [e] });
    expect(foreign.status).toBe(403);
    expect(
      (await viewer.client.post("/api/v1/events", { session_id: viewer.sessionId, events: [] })).status,
    ).toBe(422);
    expect((await viewer.client.post("/api/v1/events", { events: [e] })).status).toBe(422);
    expect((await viewer.client.request("POST", "/api/v1/events", { body: "{not json" })).status).toBe(400);
    const huge = await viewer.client.post("/api/v1/events", {
      session_id: viewer.sessionId,
      events: Array.from({ length: 40 }, () =>
        wireEvent("WINDOW_BLUR", { payload: { pad: "x".repeat(60_000) } }),
      ),
    });
    expect(huge.status).toBe(413);
    expect(
      (await app.client().post("/api/v1/events", { session_id: viewer.sessionId, events: [e] })).status,
    ).toBe(401);
    await settle();
    expect(await db()("event_log").where({ event_id: e.event_id }).first()).toBeUndefined();
  });

  it("builds watched history, view counts, training interactions with the spec's weights, co-views and session activity", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "projections");
    await deliverEvents(p, [
      wireEvent("VIDEO_PLAY", { video_id: ext(3) }),
      wireEvent("VIDEO_PLAY", { video_id: ext(3) }),
      wireEvent("VIDEO_WATCHED_1S", { video_id: ext(3) }),
      wireEvent("VIDEO_ENDED", {
        video_id: ext(3),
        payload: { duration: 30, totalWatchedTime: 27, completionRate: 0.9 },
      }),
      wireEvent("LIKE", { payload: { videoId: ext(3) } }),
      wireEvent("VIDEO_ENDED", {
        video_id: ext(4),
        payload: { duration: 30, totalWatchedTime: 6, completionRate: 0.2 },
      }),
      wireEvent("VIDEO_WATCHED_1S", { video_id: ext(5), seq: 41 }),
      // Any event with a video_id co-views (spec: readers), though a pause alone is not a watch.
      wireEvent("VIDEO_PAUSE", { video_id: ext(2) }),
      wireEvent("SESSION_END", { seq: 42 }),
    ]);
    await settle();
    const watched = await db()("watched_videos")
      .where({ user_id: p.userId })
      .orderBy("video_id")
      .select("video_id");
    expect(watched.map((w) => w.video_id)).toEqual([ext(3), ext(4), ext(5)].sort());
    const plays = await db()("video_view_counts")
      .where({ experiment_id: study.experiment.id, video_id: ext(3) })
      .first("plays");
    expect(Number(plays?.plays)).toBeGreaterThanOrEqual(2);
    const inter = await db()("interactions")
      .where({ user_id: p.userId })
      .orderBy("video_id")
      .select("video_id", "weight", "events");
    // ext(3): WATCHED_1S 1.0 + ENDED at 0.9 2.0 + LIKE 3.0 = 6.0; ext(4): ENDED at 0.2 counts nothing; ext(5): 1.0.
    expect(inter.map((i) => [i.video_id, Number(i.weight)])).toEqual(
      [
        [ext(3), 6],
        [ext(5), 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const coviews = await db()("co_views")
      .where({ experiment_id: study.experiment.id })
      .select("video_a", "video_b", "count");
    const pair = (a: string, b: string) => (a < b ? [a, b] : [b, a]);
    for (const [a, b] of [
      pair(ext(3), ext(4)),
      pair(ext(3), ext(5)),
      pair(ext(4), ext(5)),
      pair(ext(2), ext(5)),
    ]) {
      expect(coviews.find((c) => c.video_a === a && c.video_b === b)?.count).toBe(1);
    }
    const activity = await db()("session_activity").where({ session_id: p.sessionId }).first();
    expect(activity).toMatchObject({ user_id: p.userId, event_count: 9 });
    expect(Number(activity.max_seq)).toBe(42);
    expect(activity.ended_at).not.toBeNull();
  });

  it("leaves a video watched a moment ago out of the next feed when the feed reads after the batch's position", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "ryw");
    const before = await p.client.get<FeedPage>(`/feed?session_id=${p.sessionId}`);
    const first = before.body.items[0] as Video;
    const sent = await sendEvents(p, [wireEvent("VIDEO_WATCHED_1S", { video_id: first.external_id })]);
    const after = await p.client.get<FeedPage>(`/feed?session_id=${p.sessionId}&after=${sent.body.position}`);
    expect(after.headers.get("x-feedlab-read-after")).toBe("reached");
    expect(after.body.items.map((v) => v.id)).not.toContain(first.id);
    const related = await p.client.request<FeedPage>(
      "GET",
      `/feed/${(before.body.items[1] as Video).id}/related?session_id=${p.sessionId}`,
      {
        headers: { "x-feedlab-after": sent.body.position },
      },
    );
    expect(related.body.items.map((v) => v.id)).not.toContain(first.id);
    expect(codeOf(await p.client.get(`/feed?session_id=${p.sessionId}&after=garbage`))).toBe(
      "invalid_position",
    );
  });

  it("exports events as NDJSON and CSV with type and time filters, and shows a trajectory without the seven noisy types", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "exported");
    const events = [
      wireEvent("PAGE_LOAD"),
      wireEvent("SCROLL"),
      wireEvent("VIDEO_PLAY", { video_id: ext(0) }),
      wireEvent("WINDOW_FOCUS"),
      wireEvent("LAYOUT_CHANGE", { payload: { from: "a,b", to: 'say "hi"', context: "line\nbreak" } }),
    ];
    await deliverEvents(p, events);
    await settle();
    const nd = await admin.get(
      `/api/v1/admin/experiments/${study.experiment.id}/events?format=ndjson&types=PAGE_LOAD,LAYOUT_CHANGE`,
    );
    expect(nd.status).toBe(200);
    expect(nd.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = nd.text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const mine = lines.filter((l) => l.user_id === p.userId);
    expect(mine.map((l) => l.event_type)).toEqual(["PAGE_LOAD", "LAYOUT_CHANGE"]);
    expect(Object.keys(mine[0])).toEqual([
      "event_id",
      "session_id",
      "user_id",
      "login_id",
      "group_id",
      "event_type",
      "video_id",
      "timestamp",
      "received_at",
      "watch_ratio",
      "watch_duration",
      "position_in_feed",
      "algorithm_feed",
      "algorithm_watch",
      "payload",
      "experiment_id",
      "group_name",
      "seq",
      "ui_feed",
      "ui_watch",
      "timestamp_flag",
      "ui_feed_name",
      "ui_watch_name",
    ]);
    expect(mine[0]).toMatchObject({ experiment_id: study.experiment.id, group_name: study.groups[0]?.name });
    const since = events[2]?.timestamp;
    const csv = await admin.get(
      `/api/v1/admin/experiments/${study.experiment.id}/events?format=csv&since=${since}`,
    );
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.text.split("\r\n")[0]).toBe(
      "event_id,session_id,user_id,login_id,group_id,event_type,video_id,timestamp,received_at,watch_ratio,watch_duration,position_in_feed,algorithm_feed,algorithm_watch,payload,experiment_id,group_name,seq,ui_feed,ui_watch,timestamp_flag,ui_feed_name,ui_watch_name",
    );
    const records = parseCsv(csv.text, { columns: true }) as Record<string, string>[];
    const layout = records.find((r) => r.event_id === events[4]?.event_id);
    expect(JSON.parse(layout?.payload ?? "{}")).toEqual({
      from: "a,b",
      to: 'say "hi"',
      context: "line\nbreak",
    });
    expect(records.map((r) => r.event_id)).not.toContain(events[0]?.event_id);
    expect(
      codeOf(await admin.get(`/api/v1/admin/experiments/${study.experiment.id}/events?types=NOPE`)),
    ).toBe("unknown_event_type");
    const traj = await admin.get<{ event_type: string }[]>(
      `/api/v1/admin/participants/${p.userId}/trajectory`,
    );
    expect(traj.body.map((e) => e.event_type)).toEqual(["PAGE_LOAD", "VIDEO_PLAY", "LAYOUT_CHANGE"]);
    expect((await admin.get(`/api/v1/admin/participants/${randomUUID()}/trajectory`)).status).toBe(404);
  });

  it("exports in timestamp order with ties broken by session and seq, across pages", async () => {
    const a = await joinWithSession(app.client(), study.experiment.id, "order-a");
    const b = await joinWithSession(app.client(), study.experiment.id, "order-b");
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5)).toISOString();
    const tie = (seq: number | undefined) => ({ ...wireEvent("WINDOW_FOCUS"), timestamp: at, seq });
    const [a3, a1, a2, aNone] = [tie(3), tie(1), tie(2), tie(undefined)];
    const [b2, b1] = [tie(2), tie(1)];
    await deliverEvents(b, [b2, b1]);
    await deliverEvents(a, [a3, aNone, a1, a2]);
    await settle();
    const [first, second] = [a.sessionId, b.sessionId].sort();
    const bySession = { [a.sessionId]: [a1, a2, a3, aNone], [b.sessionId]: [b1, b2] };
    const expected = [...(bySession[first as string] ?? []), ...(bySession[second as string] ?? [])].map(
      (e) => e.event_id,
    );
    const filter = {
      experimentId: study.experiment.id,
      since: at,
      until: new Date(Date.parse(at) + 1).toISOString(),
    };
    const csv = await admin.get(
      `/api/v1/admin/experiments/${study.experiment.id}/events?format=csv&since=${filter.since}&until=${filter.until}`,
    );
    expect((parseCsv(csv.text, { columns: true }) as { event_id: string }[]).map((r) => r.event_id)).toEqual(
      expected,
    );
    // Pages of two rows resume exactly where the last one ended.
    const paged: string[] = [];
    for await (const page of eventPages(db(), filter, 2)) paged.push(...page.map((r) => r.event_id));
    expect(paged).toEqual(expected);
  });
});

describe.each(EVENT_BACKENDS)("session state (%s)", (backend) => {
  let app: TestApp;
  let study: StudyFixture;
  beforeAll(async () => {
    app = await startTestApp(backend);
    study = await createStudy(await app.admin(), { videoCount: 1, status: "running", weights: [1] });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("counts a session as ended by request, by a SESSION_END event, or after the idle timeout", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "states");
    const state = async (id: string) =>
      (await p.client.get<{ state: string; ended_by: string | null; event_count: number }>(`/sessions/${id}`))
        .body;
    expect(await state(p.sessionId)).toMatchObject({ state: "active", ended_by: null, event_count: 0 });

    const sent = await sendEvents(p, [wireEvent("PAGE_LOAD"), wireEvent("SESSION_END")]);
    expect(await app.runtime.progress.waitFor(decodePosition(sent.body.position) ?? new Map(), 5000)).toBe(
      true,
    );
    expect(await state(p.sessionId)).toMatchObject({
      state: "ended",
      ended_by: "session_end_event",
      event_count: 2,
    });

    const second = randomUUID();
    await p.client.post("/sessions", { session_id: second });
    await p.client.post(`/sessions/${second}/end`);
    expect(await state(second)).toMatchObject({ state: "ended", ended_by: "request" });

    // A session registered two hours ago that never sent an event.
    const stale = randomUUID();
    await p.client.post("/sessions", { session_id: stale });
    await app.runtime
      .db("sessions")
      .where({ id: stale })
      .update({ created_at: new Date(Date.now() - 2 * 3600_000) });
    expect(await state(stale)).toMatchObject({ state: "ended", ended_by: "idle" });
  });

  it("counts a session active again when events follow its SESSION_END in seq order, even when the unload's beacon arrives last", async () => {
    const p = await joinWithSession(app.client(), study.experiment.id, "reloads");
    const state = async () =>
      (await p.client.get<{ state: string; ended_by: string | null }>(`/sessions/${p.sessionId}`)).body;
    const send = async (...events: ReturnType<typeof wireEvent>[]) => {
      const sent = await sendEvents(p, events);
      expect(await app.runtime.progress.waitFor(decodePosition(sent.body.position) ?? new Map(), 5000)).toBe(
        true,
      );
    };
    // A page, its unload, then the reloaded page of the same session (seq carries on).
    await send(wireEvent("PAGE_LOAD", { seq: 1 }), wireEvent("SESSION_END", { seq: 2 }));
    expect(await state()).toMatchObject({ state: "ended", ended_by: "session_end_event" });
    await send(wireEvent("PAGE_LOAD", { seq: 3 }));
    expect(await state()).toMatchObject({ state: "active", ended_by: null });
    // The next unload's beacon is overtaken by the reloaded page's first event.
    await send(wireEvent("PAGE_LOAD", { seq: 5 }));
    await send(wireEvent("SESSION_END", { seq: 4 }));
    expect(await state()).toMatchObject({ state: "active", ended_by: null });
    // The last unload with nothing after it ends the session.
    await send(wireEvent("SESSION_END", { seq: 6 }));
    expect(await state()).toMatchObject({ state: "ended", ended_by: "session_end_event" });
    // An explicit end is for good: later events do not reopen it.
    await p.client.post(`/sessions/${p.sessionId}/end`);
    await send(wireEvent("PAGE_LOAD", { seq: 7 }));
    expect(await state()).toMatchObject({ state: "ended", ended_by: "request" });
  });
});
