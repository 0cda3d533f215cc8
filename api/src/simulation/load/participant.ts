import { randomUUID } from "node:crypto";
import type { FeedPage, Me, PendingSurvey, Video } from "@feedlab/schemas";
import type { Dispatcher } from "undici";
import type { ParticipantModel } from "../behaviour.ts";
import { EventSender } from "../drive/event-sender.ts";
import {
  cardOf,
  dwell,
  leave,
  listItem,
  MAX_SURVEYS_IN_A_ROW,
  PAGE_SIZE,
  seeCards,
  trackHover,
  trackRelatedClick,
  trackRelatedList,
  trackSessionStart,
  trackVideoMeta,
} from "../drive/http-pages.ts";
import { ParticipantClient, type Reply } from "../drive/participant-client.ts";
import type { LoadStats } from "./load-stats.ts";
import { playbackTimeline } from "./playback.ts";

/** The normal buffer's age limit (spec: Batching): a load participant sends one batch this often. */
const BATCH_EVERY_MS = 5000;
/** A participant whose request failed waits this long before going on (a person trying again). */
const AFTER_FAILURE_MS = 2000;
/** The shortest look at a list of cards, so a participant who opens nothing does not reload at once. */
const MIN_LOOK_MS = 1500;
/** The lag probe's endpoint in the report: a feed request that waits for the batch just sent. */
const LAG_ENDPOINT = "GET /feed?after";

/** A join answered 429: the deployment limits joins per address (FEEDLAB_JOIN_RATE_LIMIT). */
export class JoinLimited extends Error {
  readonly retryAfter: string | null;
  constructor(retryAfter: string | null) {
    super("join rate limit");
    this.retryAfter = retryAfter;
  }
}

export interface LoadParticipant {
  readonly baseUrl: string;
  readonly dispatcher: Dispatcher;
  readonly stats: LoadStats;
  readonly timeoutMs: number;
  readonly experimentId: string;
  readonly loginId: string;
  readonly model: ParticipantModel;
  /** Epoch ms at which the participant arrives. */
  readonly startAt: number;
  /** Epoch ms at which the participant stops browsing (then sends what is left and ends the session). */
  readonly until: number;
  /** A lag probe follows every n-th batch (0: none); the participant's index staggers which. */
  readonly lagEvery: number;
  readonly index: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/** One session of a load participant: `until` comes forward when the schedule lets them come back. */
interface LoadSession extends LoadParticipant {
  until: number;
  readonly sessionId: string;
  /** What a page's `/me` said. */
  sawMe(me: Me): void;
}

/**
 * One load participant at human pace (issue 36, `feedlab simulate`): joins, agrees to the consent text,
 * registers a session, answers what surveys are pending, then goes from the feed to watch pages as its
 * behaviour model decides, waiting the model's times (looking at cards, watching, pausing) for real.
 * Every page asks what the participant pages ask (`/api/v1/me`, the pending survey, the feed or the video
 * and its related list). Its events go out as one batch every 5 s on a clock of their own (open loop:
 * a slow answer delays neither the next batch nor the pages), and every `lagEvery`-th batch is followed
 * by a feed request with `after=<its position>`, whose wait is the projector's lag. At `until` it sends
 * what is left, with SESSION_END, and ends the session. In a study with a schedule, the session ends
 * when `/me` shows the next window open (`followSchedule`) and a new one begins in it, as a returning
 * participant's would; load participants are real participants, so the windows are the study's own.
 * Throws `JoinLimited` on a join's 429.
 */
export async function runLoadParticipant(p: LoadParticipant): Promise<void> {
  await sleep(p.startAt - Date.now());
  const cookie = await join(p);
  if (cookie === null) return;
  const client = new ParticipantClient(p.baseUrl, cookie, p.dispatcher, p.stats.observe, p.timeoutMs);
  if (!(await consent(client))) return;
  const probe = new ParticipantClient(p.baseUrl, cookie, p.dispatcher, lagObserver(p), p.timeoutMs);
  const schedule = followSchedule(p.model);
  while (Date.now() < p.until) {
    const s: LoadSession = {
      ...p,
      sessionId: randomUUID(),
      sawMe: (me) => {
        const at = schedule.saw(me);
        if (at !== null) s.until = Math.min(s.until, at);
      },
    };
    if (!(await browseSession(s, client, probe))) return;
    schedule.began();
  }
}

/**
 * When a load participant comes back (api.md "Longitudinal studies (wave 4)"): once a page's `/me`
 * shows the window of a later session than the current one (or the current session began before its
 * window, so it never counts), the moment in it the model chooses (epoch ms), once per window.
 */
export function followSchedule(model: ParticipantModel, now: () => number = Date.now) {
  /** The schedule's session the current one is for (1: the first, which needs no window). */
  let current = 1;
  let pending: number | null = null;
  return {
    saw(me: Pick<Me, "next_session" | "session_open">): number | null {
      const next = me.next_session;
      if (next === null || pending !== null || (next.session <= current && me.session_open)) return null;
      pending = next.session;
      const window = { opensAt: Date.parse(next.opens_at), closesAt: Date.parse(next.closes_at) };
      return now() + model.windowWait(window, now());
    },
    /** A new session begins: for the window last seen, if any. */
    began(): void {
      if (pending !== null) current = pending;
      pending = null;
    },
  };
}

/** One session, until `s.until`; false when it could not begin. */
async function browseSession(s: LoadSession, client: ParticipantClient, probe: ParticipantClient) {
  const { sessionId } = s;
  const registered = await attempt(() => client.post("/sessions", { session_id: sessionId }));
  if (registered?.status !== 201 && registered?.status !== 200) return false;
  const events = new EventSender(client, sessionId, { paced: true });
  const clock = batchClock(s, events, probe, sessionId);
  await trackSessionStart(events, sessionId, "Feedlab load test (HTTP)");
  try {
    while (Date.now() < s.until) {
      let next = await feedPage(s, client, events);
      while (next !== null && Date.now() < s.until) next = await watchPage(s, client, events, next);
    }
  } finally {
    await events.track("SESSION_END", { sessionId });
    await clock.stop();
    await send(s, events);
    await attempt(() => client.post(`/sessions/${sessionId}/end`));
  }
  return true;
}

/** Joins; answers the participant cookie, or null when the participant could not join before `until`. */
async function join(p: LoadParticipant): Promise<string | null> {
  const anonymous = new ParticipantClient(p.baseUrl, "", p.dispatcher, p.stats.observe, p.timeoutMs);
  while (Date.now() < p.until) {
    const r = await attempt(() =>
      anonymous.post("/api/v1/participants/join", { experiment_id: p.experimentId, login_id: p.loginId }),
    );
    if (r?.status === 429) throw new JoinLimited(header(r, "retry-after"));
    if (r?.status === 200) {
      p.stats.joinedOne();
      const setCookie = r.headers["set-cookie"];
      const cookies = (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []).map(
        (c) => c.split(";")[0] ?? "",
      );
      return cookies.join("; ");
    }
    if (r !== null && r.status < 500) {
      p.stats.example(`a join was refused: ${describe(r)}`);
      return null;
    }
    await sleep(AFTER_FAILURE_MS);
  }
  return null;
}

/** Agrees to the consent text when there is one; false when the participant cannot go on. */
async function consent(client: ParticipantClient): Promise<boolean> {
  const me = await attempt(() => client.get<Me>("/api/v1/me"));
  if (me?.status !== 200) return false;
  const c = me.body.consent;
  if (c === null || c.consented_at !== null) return true;
  const r = await attempt(() =>
    client.post("/api/v1/participants/consent", { agree: true, version: c.version }),
  );
  return r?.status === 204;
}

/** The feed page: its requests and events, the look at the cards; answers the video clicked, if any. */
async function feedPage(
  p: LoadSession,
  client: ParticipantClient,
  events: EventSender,
): Promise<Video | null> {
  const { sessionId } = p;
  await events.track("PAGE_LOAD", { url: "/", pageType: "feed" });
  await pageRequests(p, client);
  const feed = await attempt(() => client.get<FeedPage>(`/feed?session_id=${sessionId}&limit=${PAGE_SIZE}`));
  if (feed?.status !== 200 || feed.body.items.length === 0) {
    await sleep(Math.min(AFTER_FAILURE_MS, p.until - Date.now()));
    return null;
  }
  const items = feed.body.items;
  await events.track("HOME_FEED", { videoCount: items.length, videos: items.map(listItem) });
  const choice = p.model.chooseFromFeed(items.map(cardOf));
  await seeCards(events, items, choice.scrolledTo, "feed", choice.dwellMs, () => {});
  const hovering = choice.hovers.reduce((sum, h) => sum + h.durationMs, 0);
  await wait(p, Math.max(MIN_LOOK_MS, choice.dwellMs) - hovering);
  for (const h of choice.hovers) {
    const v = items[h.position];
    if (!v) continue;
    await wait(p, h.durationMs);
    await trackHover(events, v, h);
  }
  const clicked = choice.click === null ? undefined : items[choice.click.position];
  if (!clicked) {
    await events.track("PAGE_EXIT", { url: "/", pageType: "feed", ...dwell(choice.dwellMs) });
    return null;
  }
  const position = choice.click?.position ?? 0;
  await events.track("FEED_CLICK", {}, { video_id: clicked.external_id, position_in_feed: position });
  await leave(events, "/", `/watch/${clicked.id}`, "feed", choice.dwellMs);
  return clicked;
}

/** A watch page: its requests, the playback in real time, the related list; answers the next video. */
async function watchPage(
  p: LoadSession,
  client: ParticipantClient,
  events: EventSender,
  video: Video,
): Promise<Video | null> {
  const { sessionId } = p;
  const path = `/watch/${video.id}`;
  await events.track("PAGE_LOAD", { url: path, pageType: "watch" });
  await pageRequests(p, client);
  const meta = await attempt(() => client.get<Video>(`/api/v1/videos/${video.id}`));
  if (meta?.status !== 200) {
    await sleep(Math.min(AFTER_FAILURE_MS, p.until - Date.now()));
    return null;
  }
  await trackVideoMeta(events, video);
  const related = await attempt(() =>
    client.get<FeedPage>(`/feed/${video.id}/related?session_id=${sessionId}&limit=${PAGE_SIZE}`),
  );
  const items = related?.status === 200 ? related.body.items : [];
  if (items.length > 0) await trackRelatedList(events, video, items);

  const plan = p.model.watch(cardOf(video, 0).video);
  const playing = Date.now();
  for (const e of playbackTimeline(video.external_id, plan, video.type)) {
    if (!(await wait(p, playing + e.atMs - Date.now()))) return null;
    await e.track(events);
  }
  const spentMs = Date.now() - playing;
  const next = p.model.nextStep(items.map(cardOf));
  if (next.choice !== null) {
    await seeCards(events, items, next.choice.scrolledTo, "related", next.choice.dwellMs, () => {});
    await wait(p, next.choice.dwellMs);
  }
  const target = next.kind === "related" ? items[next.choice.click.position] : undefined;
  if (next.kind === "related" && target) {
    await trackRelatedClick(events, video, target, next.choice.click.position);
    await leave(events, path, `/watch/${target.id}`, "watch", spentMs);
    return target;
  }
  await leave(events, path, "/", "watch", spentMs);
  return null;
}

/**
 * What every participant page asks when it opens: who the participant is (for the session, which tells
 * where it stands on the schedule), and any pending survey.
 */
async function pageRequests(p: LoadSession, client: ParticipantClient): Promise<void> {
  const { sessionId } = p;
  const me = await attempt(() => client.get<Me>(`/api/v1/me?session_id=${sessionId}`));
  if (me?.status === 200) p.sawMe(me.body);
  for (let i = 0; i < MAX_SURVEYS_IN_A_ROW && Date.now() < p.until; i++) {
    const pending = await attempt(() =>
      client.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${sessionId}`),
    );
    if (pending?.status !== 200 || pending.body === null) return;
    const { survey, about_session_id } = pending.body;
    const { answers, durationMs } = p.model.answerSurvey(survey.questions);
    if (!(await wait(p, durationMs))) return;
    const r = await attempt(() =>
      client.post(`/api/v1/surveys/${survey.id}/responses`, {
        session_id: sessionId,
        about_session_id,
        answers,
        duration_ms: Math.round(durationMs),
      }),
    );
    if (r?.status !== 201) return;
  }
}

/**
 * The participant's batch clock: one `sendAll` every 5 s from now until `until`, each on time whether
 * or not the one before was answered (open loop). `stop` ends the clock and waits for its batches.
 */
function batchClock(p: LoadParticipant, events: EventSender, probe: ParticipantClient, sessionId: string) {
  const inflight = new Set<Promise<void>>();
  const first = Date.now();
  let tick = 0;
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    tick += 1;
    const due = first + tick * BATCH_EVERY_MS;
    if (due > p.until) return;
    const n = tick;
    timer = setTimeout(() => {
      const sampled = p.lagEvery > 0 && (n + p.index) % p.lagEvery === 0;
      const sent = send(p, events, sampled ? { probe, sessionId } : null).finally(() =>
        inflight.delete(sent),
      );
      inflight.add(sent);
      schedule();
    }, due - Date.now());
  };
  schedule();
  return {
    stop: async () => {
      clearTimeout(timer);
      await Promise.all(inflight);
    },
  };
}

/** Sends the buffered events as one batch; with a probe, measures the lag once it is answered 202. */
async function send(
  p: LoadParticipant,
  events: EventSender,
  lag: { probe: ParticipantClient; sessionId: string } | null = null,
): Promise<void> {
  const outcome = await events.sendAll();
  if (outcome === null || outcome.status !== 202 || outcome.position === null) return;
  // Taken out as they are counted: batches in flight together count each id and refusal once.
  p.stats.batch(events.acknowledged.splice(0), events.rejected.splice(0).length);
  if (lag === null) return;
  const answered = performance.now();
  const r = await attempt(() =>
    lag.probe.get<FeedPage>(
      `/feed?session_id=${lag.sessionId}&limit=${PAGE_SIZE}&after=${encodeURIComponent(outcome.position ?? "")}`,
    ),
  );
  if (r?.status === 200)
    p.stats.lag(performance.now() - answered, header(r, "x-feedlab-read-after") !== "timeout");
}

/** The lag probe's requests count under an endpoint of their own: their wait is the lag, not serving. */
function lagObserver(p: LoadParticipant) {
  return (endpoint: string, status: number, ms: number) =>
    p.stats.observe(endpoint === "GET /feed" ? LAG_ENDPOINT : endpoint, status, ms);
}

/** Waits `ms` or until `until`, whichever is first; false when `until` came first. */
async function wait(p: LoadParticipant, ms: number): Promise<boolean> {
  const left = p.until - Date.now();
  await sleep(Math.min(ms, left));
  return ms <= left;
}

/** A request whose failure to get an answer is already counted (the observer): null then. */
async function attempt<T>(request: () => Promise<Reply<T>>): Promise<Reply<T> | null> {
  try {
    return await request();
  } catch {
    return null;
  }
}

const header = (r: Reply, name: string): string | null => {
  const v = r.headers[name];
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
};

function describe(r: Reply): string {
  const body = r.body as { error?: { code?: string; message?: string } } | null;
  return `HTTP ${r.status} ${body?.error?.code ?? ""} ${body?.error?.message ?? ""}`.trim();
}
