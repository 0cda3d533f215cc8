// The study a release's upgrade fixture holds (docs/upgrades.md): made through the HTTP API as
// researchers and participants make one, so every row is one this release writes. It aims at every kind
// of row: experiments with every field, participants in every state, events of every type, answered and
// dismissed surveys, a dry run's report, model runs, an erased participant's tombstones, Prolific's
// approvals and bonuses, reminders. `write-fixture.ts` lists any table it leaves empty.
import { readFileSync } from "node:fs";
import path from "node:path";
import { EVENT_TYPES } from "@feedlab/schemas";
import { createAppTrainer } from "../../api/src/training/trainer.ts";
import type { Client, TestApp } from "../harness/app.ts";
import { wireEvent } from "../harness/events.ts";
import type { FakeProlific } from "../harness/fake-prolific.ts";
import { FEED_SOURCE, videoInput } from "../harness/fixtures.ts";
import type { FakeRecommender } from "../harness/recommender-server.ts";
import type { TestSmtp } from "../harness/smtp.ts";
import { newSession, sampleAnswers, sampleQuestions } from "../harness/surveys.ts";

/** The outside parties the study talks to, each a real server of the test harness. */
export interface Outside {
  readonly smtp: TestSmtp;
  readonly prolific: FakeProlific;
  readonly recommender: FakeRecommender;
}

/** Answers the body of a reply with the status expected, or throws naming the step. */
async function ok<T = unknown>(
  step: string,
  reply: Promise<{ status: number; body: unknown; text: string }>,
  status = 200,
): Promise<T> {
  const r = await reply;
  if (r.status !== status) throw new Error(`${step}: expected ${status}, got ${r.status}: ${r.text}`);
  return r.body as T;
}

const DEMO_MEDIA = path.resolve(import.meta.dirname, "../../api/demo/media");

/** Questions with every text in English and German, as a study in both languages needs them. */
function bilingual(questions: readonly unknown[]): unknown[] {
  const both = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(both);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "text" && typeof v === "string" ? { en: v, de: `${v} (de)` } : both(v),
      ]),
    );
  };
  return questions.map(both);
}

/** Waits until the projector has applied everything logged so far. */
async function projected(app: TestApp): Promise<void> {
  if (!(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 30_000)))
    throw new Error("the projector did not catch up within 30 s");
}

/** One participant: joined by `join`, agreed, and with a session. */
interface Participant {
  readonly client: Client;
  readonly userId: string;
  readonly sessionId: string;
}

async function join(
  app: TestApp,
  experimentId: string,
  login: string,
  extra: Record<string, unknown> = {},
  consent: Record<string, unknown> | null = { agree: true },
): Promise<Participant> {
  const client = app.client();
  const joined = await ok<{ user_id: string }>(
    `join ${login}`,
    client.post("/api/v1/participants/join", { experiment_id: experimentId, login_id: login, ...extra }),
  );
  if (consent) {
    const me = await ok<{ consent?: { version?: number } }>("me", client.get("/api/v1/me"));
    await ok(
      `consent of ${login}`,
      client.post("/api/v1/participants/consent", { ...consent, version: me.consent?.version }),
      204,
    );
  }
  return { client, userId: joined.user_id, sessionId: await newSession(client) };
}

/** Sends events of every type in the participant's session, each with its example payload. */
async function everyEventType(p: Participant, videoId: string): Promise<void> {
  const events = EVENT_TYPES.map((type) =>
    wireEvent(type, type === "SESSION_END" ? {} : { video_id: videoId }),
  ).filter((e) => e.event_type !== "SESSION_END");
  events.push(wireEvent("SESSION_END"));
  const reply = await ok<{ rejected: unknown[] }>(
    "events of every type",
    p.client.post("/api/v1/events", { session_id: p.sessionId, events }),
    202,
  );
  if (reply.rejected.length > 0) throw new Error(`events rejected: ${JSON.stringify(reply.rejected)}`);
}

/** A draft experiment named `name` with one arm and the pool given. */
async function oneArmExperiment(admin: Client, name: string, arm: Record<string, unknown>, pool: string[]) {
  const experiment = await ok<{ id: string }>(name, admin.post("/api/v1/admin/experiments", { name }), 201);
  await ok(`${name}: arm`, admin.post(`/api/v1/admin/experiments/${experiment.id}/groups`, arm), 201);
  await ok(
    `${name}: pool`,
    admin.put(`/api/v1/admin/experiments/${experiment.id}/videos`, { video_ids: pool }),
  );
  return experiment;
}

export async function populate(app: TestApp, outside: Outside): Promise<void> {
  const admin = await app.admin();

  // The lab: a researcher and an analyst besides the owner; layouts, a registered external recommender.
  const researcher = await app.account("rita", "researcher");
  await app.account("ali", "researcher");
  const codeLayout = await ok<{ id: string }>(
    "code layout",
    researcher.post("/api/v1/admin/ui-templates", {
      name: "Plain feed",
      page: "feed",
      template_type: "code",
      source: FEED_SOURCE,
    }),
    201,
  );
  await ok(
    "blocks layout",
    researcher.post("/api/v1/admin/ui-templates", {
      name: "Blocks watch page",
      page: "watch",
      template_type: "blocks",
      tree: {
        type: "Page",
        children: [
          { type: "Text", props: { style: "heading", text: "Up next" } },
          { type: "VideoList", props: { pageSize: 6 }, children: [{ type: "Thumbnail" }, { type: "Title" }] },
        ],
      },
    }),
    201,
  );
  outside.recommender.setBehaviour((call) => {
    const body = call.body as { candidates?: { id: string }[] } | undefined;
    return { json: { video_ids: (body?.candidates ?? []).map((c) => c.id).reverse() } };
  });
  await ok(
    "external recommender",
    researcher.post("/api/v1/admin/recommenders", {
      key: "lab_ranker",
      kind: "external_http",
      label: "The lab's ranker",
      supports_feed: true,
      supports_watch: false,
      config: { url: `${outside.recommender.url}/rank`, headers: { "X-Api-Key": "upgrade-fixture" } },
    }),
    201,
  );

  // Media: an uploaded video and its captions, and a pool of videos with every field.
  const form = new FormData();
  form.append("file", new Blob([readFileSync(path.join(DEMO_MEDIA, "sourdough-basics.webm"))]), "clip.webm");
  const upload = await ok<{ url: string }>(
    "upload",
    researcher.request("POST", "/api/v1/admin/media", { form }),
    201,
  );
  const vtt = new FormData();
  vtt.append("file", new Blob(["WEBVTT\n\n00:00.000 --> 00:02.000\nHello\n"]), "clip.vtt");
  vtt.append("kind", "captions");
  vtt.append("lang", "en");
  const captions = await ok<{ url: string }>(
    "captions",
    researcher.request("POST", "/api/v1/admin/media", { form: vtt }),
    201,
  );
  const { videos } = await ok<{ videos: { id: string }[] }>(
    "videos",
    researcher.post("/api/v1/admin/videos", {
      videos: [
        videoInput(1, {
          url: upload.url,
          description: "An uploaded clip",
          thumbnail_url: "/media/demo/sourdough-basics.jpg",
          comments: [{ author: "Ana", text: "Lovely" }],
          captions: [{ lang: "en", url: captions.url, label: "English" }],
        }),
        ...Array.from({ length: 5 }, (_, i) => videoInput(i + 2)),
        {
          external_id: "yt-upgrade",
          url: "https://www.youtube.com/watch?v=aqz-KE-bpKQ",
          title: "A YouTube video",
        },
      ],
    }),
    201,
  );
  const video = (i: number) => (videos[i] as { id: string }).id;

  // The main study: every field an experiment has, two arms of different kinds, members.
  const study = await ok<{ id: string }>(
    "experiment",
    researcher.post("/api/v1/admin/experiments", { name: "Upgrade study", description: "Every field set" }),
    201,
  );
  const base = `/api/v1/admin/experiments/${study.id}`;
  await ok(
    "members",
    researcher.put(`${base}/members`, [
      { username: "rita", role: "owner" },
      { username: "ali", role: "analyst" },
    ]),
  );
  await ok(
    "arm A",
    researcher.post(`${base}/groups`, {
      name: "Popular",
      weight: 1,
      algorithm_config: { feed: "popularity", watch: "similarity" },
      ui_config: { feed: codeLayout.id, watch: "grid-desktop" },
      recommender_params: { popularity: { window_days: 30 } },
    }),
    201,
  );
  await ok(
    "arm B",
    researcher.post(`${base}/groups`, {
      name: "Lab ranker",
      weight: 1,
      cap: 50,
      algorithm_config: { feed: "lab_ranker", watch: "recency" },
      ui_config: { feed: "list-mobile", watch: "list-mobile" },
    }),
    201,
  );
  await ok("pool", researcher.put(`${base}/videos`, { video_ids: videos.map((v) => v.id) }));
  const pre = await ok<{ id: string }>(
    "pre survey",
    researcher.post(`${base}/surveys`, {
      kind: "pre",
      name: { en: "Before you start", de: "Bevor Sie anfangen" },
      questions: bilingual(sampleQuestions()),
      is_active: true,
    }),
    201,
  );
  const post = await ok<{ id: string }>(
    "post survey",
    researcher.post(`${base}/surveys`, {
      kind: "post",
      name: "After the study",
      questions: bilingual([
        { ...sampleQuestions()[0], attention_answer: 2 },
        { id: "why", text: "Anything else?", type: "text", answers: [] },
      ]),
      is_active: true,
    }),
    201,
  );
  const prolificStudy = outside.prolific.seedStudy({
    submissions: [
      { participant_id: "pidfinish00000000000001", id: "subfinish0000000000000001" },
      { participant_id: "pidother000000000000001", id: "subother00000000000000001" },
    ],
  });
  await ok(
    "every field",
    researcher.patch(base, {
      consent_text: { en: "You agree to take part.", de: "Sie stimmen zu." },
      completion: {
        after_sessions: 2,
        after_post_survey: false,
        code: "UPGRADE1",
        redirect_url: "https://app.prolific.com/submissions/complete?cc={code}",
        redirect_delay_s: 3,
      },
      exclusion_rules: [{ measure: "pointer_events", op: "<", value: 1 }],
      min_response_ms: 0,
      languages: ["en", "de"],
      default_language: "en",
      language_switch: true,
      assignment: { method: "blocked", counts: "joined", block_size: 2, stale_minutes: 60 },
      schedule: [{ session: 2, opens_after_hours: 1, closes_after_hours: 48 }],
      reminders: { email: true, before_close_hours: 2 },
      prolific: { study_id: prolificStudy, on_finish: "approve" },
    }),
  );
  await ok("start", researcher.patch(base, { status: "running" }));

  // Participants in every state. Time passes by moving a participant's session beginnings back.
  const passHours = (userId: string, hours: number) =>
    app.runtime
      .db("session_time")
      .where({ user_id: userId })
      .update({
        first_received_at: app.runtime.db.raw("first_received_at - make_interval(secs => ?)", [hours * 3600]),
      });
  /** A second session in the window: begun by its first event, counted once projected. */
  const secondSession = async (p: Participant) => {
    await passHours(p.userId, 1.5);
    const second = await newSession(p.client);
    await ok(
      "second session",
      p.client.post("/api/v1/events", { session_id: second, events: [wireEvent("WINDOW_FOCUS")] }),
      202,
    );
    await projected(app);
    return second;
  };

  const finisher = await join(
    app,
    study.id,
    "pidfinish00000000000001",
    {
      recruiting: {
        PROLIFIC_PID: "pidfinish00000000000001",
        STUDY_ID: prolificStudy,
        SESSION_ID: "subfinish0000000000000001",
      },
      lang: "de",
    },
    { agree: true, email: "finisher@example.org" },
  );
  await ok(
    "pre answer",
    finisher.client.post(`/api/v1/surveys/${pre.id}/responses`, {
      session_id: finisher.sessionId,
      answers: sampleAnswers(),
      duration_ms: 12_000,
    }),
    201,
  );
  await everyEventType(finisher, video(1));
  // A second video watched: the pair's co-view.
  await ok(
    "second video",
    finisher.client.post("/api/v1/events", {
      session_id: finisher.sessionId,
      events: [
        wireEvent("VIDEO_PLAY", { video_id: video(2) }),
        wireEvent("VIDEO_ENDED", { video_id: video(2) }),
      ],
    }),
    202,
  );
  await ok("language", finisher.client.put("/api/v1/me/language", { language: "en" }), 204);
  await ok("feed", finisher.client.get(`/feed?session_id=${finisher.sessionId}`));
  await ok("related", finisher.client.get(`/feed/${video(1)}/related?session_id=${finisher.sessionId}`));
  await projected(app);
  const finisherSecond = await secondSession(finisher);
  await ok(
    "post answer",
    finisher.client.post(`/api/v1/surveys/${post.id}/responses`, {
      session_id: finisherSecond,
      answers: [
        { questionId: "mood", selections: ["good"], textInput: null },
        { questionId: "why", selections: [], textInput: "Fine" },
      ],
      duration_ms: 8_000,
    }),
    201,
  );

  const status = async (p: Participant) =>
    (await ok<{ status: string }>("me", p.client.get("/api/v1/me"))).status;
  if ((await status(finisher)) !== "finished") throw new Error(`the finisher is ${await status(finisher)}`);

  const dismisser = await join(app, study.id, "pidother000000000000001", {
    recruiting: {
      PROLIFIC_PID: "pidother000000000000001",
      STUDY_ID: prolificStudy,
      SESSION_ID: "subother00000000000000001",
    },
  });
  await ok(
    "events",
    dismisser.client.post("/api/v1/events", {
      session_id: dismisser.sessionId,
      events: [wireEvent("WINDOW_FOCUS"), wireEvent("IMPRESSION", { video_id: video(2) })],
    }),
    202,
  );
  await ok("feed of the lab ranker", dismisser.client.get(`/feed?session_id=${dismisser.sessionId}`));
  await projected(app);
  const dismisserSecond = await secondSession(dismisser);
  await ok(
    "dismissal",
    dismisser.client.post(`/api/v1/surveys/${post.id}/dismissals`, { session_id: dismisserSecond }),
    204,
  );
  // Joined, never agreed; agreed and withdrew (erased: the tombstones); excluded by hand; registered by a
  // researcher; reminded of session 2 by e-mail; lapsed (session 2's window closed unused).
  await join(app, study.id, "joined-only", {}, null);
  const leaver = await join(app, study.id, "leaver");
  await ok(
    "leaver's events",
    leaver.client.post("/api/v1/events", {
      session_id: leaver.sessionId,
      events: [wireEvent("WINDOW_FOCUS")],
    }),
    202,
  );
  await projected(app);
  await ok("withdraw", leaver.client.post("/api/v1/me/withdraw", {}), 204);
  const excluded = await join(app, study.id, "excluded");
  await ok(
    "exclude",
    researcher.patch(`/api/v1/admin/participants/${excluded.userId}`, {
      excluded: true,
      reason: "Watched with the sound off",
    }),
    204,
  );
  await ok("register", researcher.post(`${base}/participants`, { login_id: "registered" }), 201);
  // A rejected event: an unknown type in a batch with a valid one.
  await ok(
    "rejected event",
    excluded.client.post("/api/v1/events", {
      session_id: excluded.sessionId,
      events: [wireEvent("WINDOW_FOCUS"), { ...wireEvent("WINDOW_BLUR"), event_type: "NOT_A_TYPE" }],
    }),
    202,
  );
  const reminded = await join(app, study.id, "reminded", {}, { agree: true, email: "reminded@example.org" });
  const lapser = await join(app, study.id, "lapser");
  for (const p of [reminded, lapser])
    await ok(
      "first session",
      p.client.post("/api/v1/events", { session_id: p.sessionId, events: [wireEvent("WINDOW_FOCUS")] }),
      202,
    );
  await projected(app);
  await passHours(reminded.userId, 1.5);
  await passHours(lapser.userId, 49);
  await app.runtime.services.scheduleKeeper.round();
  await outside.smtp.waitFor(1);

  // An arm's recommender changed while running (recorded), and a pseudonymised package (its key).
  const arms = await ok<{ id: string; name: string }[]>("arms", researcher.get(`${base}/groups`));
  const popular = arms.find((a) => a.name === "Popular")?.id;
  await ok(
    "arm change",
    researcher.patch(`/api/v1/admin/groups/${popular}`, {
      algorithm_config: { feed: "recency", watch: "similarity" },
    }),
  );
  await ok("package", researcher.get(`${base}/package?pseudonymize=true`));
  if ((await status(lapser)) !== "lapsed") throw new Error(`the lapser is ${await status(lapser)}`);

  // The outside parties: approval on finish, a bonus paid.
  outside.prolific.setSubmissionStatus("subfinish0000000000000001", "AWAITING REVIEW");
  await app.runtime.db("prolific_approvals").update({ next_at: new Date(0) });
  await app.runtime.services.approvals.pass();
  const bonus = await ok<{ id: string }>(
    "bonus",
    researcher.post(`${base}/prolific/bonuses`, {
      bonuses: [{ participant_id: "pidfinish00000000000001", amount: 1.25 }],
    }),
    201,
  );
  await ok("pay", researcher.post(`${base}/prolific/bonuses/${bonus.id}/pay`, {}));

  // A draft study with a dry run's report, a trained model, a paused experiment.
  const draft = await oneArmExperiment(
    admin,
    "Pilot",
    {
      name: "Learned",
      algorithm_config: { feed: "learned_model", watch: "similarity" },
      ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    },
    videos.map((v) => v.id),
  );
  const run = await ok<{ id: string }>(
    "dry run",
    admin.post(`/api/v1/admin/experiments/${draft.id}/dry-runs`, {
      participants_per_arm: 2,
      browser: false,
      seed: 7,
    }),
    202,
  );
  for (let i = 0; ; i++) {
    const r = await ok<{ status: string }>(
      "dry run status",
      admin.get(`/api/v1/admin/experiments/${draft.id}/dry-runs/${run.id}`),
    );
    if (r.status === "done" || r.status === "failed") break;
    if (i > 600) throw new Error("the dry run did not end within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await projected(app);
  // A model run of the main study, by the trainer as `feedlab start` runs it (leading, one pass).
  await ok("train", researcher.post(`${base}/models/train`, {}), 202);
  const trainer = createAppTrainer(app.runtime, { isLeader: () => true });
  await trainer.tick();
  await trainer.stop();
  const paused = await oneArmExperiment(
    admin,
    "Paused",
    {
      name: "Only arm",
      algorithm_config: { feed: "random", watch: "random" },
      ui_config: { feed: "none", watch: "none" },
    },
    [video(0)],
  );
  await ok("run", admin.patch(`/api/v1/admin/experiments/${paused.id}`, { status: "running" }));
  await ok("pause", admin.patch(`/api/v1/admin/experiments/${paused.id}`, { status: "paused" }));
  await projected(app);
}
