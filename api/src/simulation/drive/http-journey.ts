import { randomUUID } from "node:crypto";
import type { FeedPage, JourneyAction, Me, PendingSurvey, Video } from "@feedlab/schemas";
import { EventSender } from "./event-sender.ts";
import {
  cardOf,
  dwell,
  leave,
  listItem,
  MAX_SURVEYS_IN_A_ROW,
  PAGE_SIZE,
  play,
  seeCards,
  trackHover,
  trackRelatedClick,
  trackRelatedList,
  trackSessionStart,
  trackVideoMeta,
} from "./http-pages.ts";
import {
  emptyIsProblem,
  type Journey,
  type JourneyInput,
  type JourneyRecord,
  meAfter,
  newRecord,
  problem,
  recordCompletion,
} from "./journey.ts";
import type { ParticipantClient, Reply } from "./participant-client.ts";
import { awaitWindow, leaveBy, plannedSessions } from "./schedule.ts";

/**
 * Looks at the feed in a session before a dry run's participant opens its best match anyway, so every
 * session reaches the watch page (the click counts like any other, in every arm alike).
 */
export const FEED_LOOKS = 3;
/** Videos watched in one session at most, whatever the minutes say (keeps a dry run short). */
const MAX_VIDEOS_PER_SESSION = 6;

/** Says what an unexpected answer means for the researcher. */
function failure(what: string, reply: Reply): string {
  const body = reply.body as { error?: { code?: string; message?: string } } | null;
  const why = body?.error?.message ?? body?.error?.code ?? "no explanation";
  return `${what} answered ${reply.status}: ${why}`;
}

/**
 * One simulated participant's study over HTTP (issue 36, `browser: false`): consent, the sessions the
 * completion rule needs (each: its surveys, the feed, the videos chosen, the related lists, back to the
 * feed), the post survey, and the completion. Events are the participant runtime's, sent with the
 * contract's batching; time is compressed (no waiting), so the payloads carry the model's durations
 * while the timestamps are the real ones. With a schedule, each later session waits for its window
 * (`awaitWindow`, compressed by the server) and begins with a new session id. Every step the pages would take is an action of the
 * contract's catalog, so the report knows which event types the journey should have produced.
 */
export function createHttpJourney(client: ParticipantClient, input: JourneyInput): Journey {
  const { model, design, deadline } = input;
  const record = newRecord(input.participant);
  const act = (...actions: JourneyAction[]) => {
    for (const a of actions) record.actions.add(a);
  };
  let going = true;
  let lastSession: string | null = null;
  let lastNumber = 0;
  const sessions = plannedSessions(model, design);

  return {
    record,
    sessions,
    get going() {
      return going;
    },
    async begin() {
      const me = await client.get<Me>("/api/v1/me");
      if (me.status !== 200) {
        problem(record, "join", "request_failed", failure("GET /api/v1/me", me));
        going = false;
        return;
      }
      const consent = me.body.consent;
      if (consent === null || consent.consented_at !== null) return;
      const agree = model.consents();
      const r = await client.post("/api/v1/participants/consent", { agree, version: consent.version });
      if (r.status !== 204) {
        problem(record, "consent", "request_failed", failure("Consent", r));
        going = false;
      } else if (!agree) {
        record.declined = true;
        going = false;
      }
    },
    async awaitWindow() {
      if (!going) return null;
      const outcome = await awaitWindow(record, model, deadline, async () => {
        const me = await client.get<Me>(meAfter(record));
        return me.status === 200 ? me.body : null;
      });
      going = outcome.going;
      return outcome.closesAt;
    },
    async visit(n) {
      if (!going) return;
      if (Date.now() > deadline) {
        record.outOfTime = true;
        going = false;
        return;
      }
      lastSession = randomUUID();
      lastNumber = n;
      // With a schedule, the visit ends in time for the next window.
      const until = leaveBy(design.schedule, n, Date.now(), deadline);
      going = await runSession(client, { ...input, deadline: until }, record, lastSession, n, act);
    },
    async end() {
      if (record.declined) return;
      // After the last session: the post survey (when the study has ended for them), then the completion.
      // Its sessions count once their events are projected: the first read waits for them.
      await client.get<Me>(meAfter(record));
      if (lastSession !== null) await answerPending(client, input, record, lastSession, lastNumber, "after");
      const after = await client.get<Me>("/api/v1/me");
      if (after.status === 200) recordCompletion(record, after.body);
    },
  };
}

/** One visit: register the session, its surveys, the feed and the videos; false when it could not go on. */
async function runSession(
  client: ParticipantClient,
  input: JourneyInput,
  record: JourneyRecord,
  sessionId: string,
  number: number,
  act: (...a: JourneyAction[]) => void,
): Promise<boolean> {
  const { model } = input;
  const registered = await client.post("/sessions", { session_id: sessionId });
  if (registered.status !== 201 && registered.status !== 200) {
    problem(record, "feed", "request_failed", failure("Registering the session", registered));
    return false;
  }
  const events = new EventSender(client, sessionId);
  await trackSessionStart(events, sessionId, "Feedlab dry run (HTTP)");
  act("start_session");
  if (!(await answerPending(client, input, record, sessionId, number, "start"))) return false;

  const budgetMs = model.options.sessionMinutes * 60_000;
  let spentMs = 0;
  let videos = 0;
  let looks = 0;
  let after: string | null = null;
  let going = true;
  while (going && spentMs < budgetMs && videos < MAX_VIDEOS_PER_SESSION && Date.now() < input.deadline) {
    // The feed page.
    await events.track("PAGE_LOAD", { url: "/", pageType: "feed" });
    act("open_page");
    const feed = await client.get<FeedPage>(
      `/feed?session_id=${sessionId}&limit=${PAGE_SIZE}${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    if (feed.status !== 200) {
      problem(record, "feed", "request_failed", failure("The feed", feed));
      going = false;
      break;
    }
    const items = feed.body.items;
    if (items.length === 0) {
      if (emptyIsProblem(record, input.design))
        problem(record, "feed", "empty_feed", `The feed was empty (recommender ${feed.body.recommender}).`);
      break;
    }
    record.firstCardMs.push(feed.ms);
    record.feedPages += 1;
    await events.track("HOME_FEED", { videoCount: items.length, videos: items.map(listItem) });
    act("load_feed");
    looks += 1;
    const choice = model.chooseFromFeed(items.map(cardOf), videos === 0 && looks >= FEED_LOOKS);
    spentMs += choice.dwellMs;
    await seeCards(events, items, choice.scrolledTo, "feed", choice.dwellMs, act);
    for (const h of choice.hovers) {
      const v = items[h.position];
      if (!v) continue;
      await trackHover(events, v, h);
      act("hover_card");
    }
    const clicked = choice.click === null ? null : items[choice.click.position];
    if (!clicked) {
      await events.track("PAGE_EXIT", { url: "/", pageType: "feed", ...dwell(choice.dwellMs) });
      act("leave_page");
      // Nothing caught their eye: they come back to the feed, up to FEED_LOOKS times a session.
      if (videos === 0 && looks < FEED_LOOKS) continue;
      break;
    }
    const position = choice.click?.position ?? 0;
    await events.track("FEED_CLICK", {}, { video_id: clicked.external_id, position_in_feed: position });
    await leave(events, "/", `/watch/${clicked.id}`, "feed", choice.dwellMs);
    act("click_feed_card", "follow_link", "leave_page");

    // Watch pages, following related videos until the participant goes back to the feed.
    let current: Video | null = clicked;
    while (current !== null && videos < MAX_VIDEOS_PER_SESSION) {
      videos += 1;
      record.watched.add(current.id);
      const next = await watchPage(client, events, record, sessionId, current, act, input);
      spentMs += next.spentMs;
      after = events.position;
      current = spentMs < budgetMs ? next.video : null;
      if (next.failed) going = false;
    }
  }
  await events.track("SESSION_END", { sessionId });
  act("end_session");
  await events.flush();
  record.acknowledged.push(...events.acknowledged);
  if (events.position !== null) record.positions.push(events.position);
  for (const t of events.sentTypes) record.sentTypes.add(t);
  for (const r of events.rejected)
    problem(
      record,
      "events",
      "events_rejected",
      `The server refused a ${r.type} event: ${r.message} (${r.code})`,
    );
  if (events.failedBatches > 0)
    problem(
      record,
      "events",
      "events_not_stored",
      `${events.failedBatches} batch(es) of events were not taken.`,
    );
  const ended = await client.post(`/sessions/${sessionId}/end`);
  if (ended.status !== 200) problem(record, "feed", "request_failed", failure("Ending the session", ended));
  return going;
}

/** One watch page: the video, its related list, the playback as planned, then where the participant goes. */
async function watchPage(
  client: ParticipantClient,
  events: EventSender,
  record: JourneyRecord,
  sessionId: string,
  video: Video,
  act: (...a: JourneyAction[]) => void,
  input: JourneyInput,
): Promise<{ video: Video | null; spentMs: number; failed: boolean }> {
  const path = `/watch/${video.id}`;
  await events.track("PAGE_LOAD", { url: path, pageType: "watch" });
  act("open_page");
  const meta = await client.get<Video>(`/api/v1/videos/${video.id}`);
  if (meta.status !== 200) {
    problem(record, "watch", "request_failed", failure(`The video ${video.external_id}`, meta));
    return { video: null, spentMs: 0, failed: true };
  }
  await trackVideoMeta(events, video);
  act("open_video");
  const related = await client.get<FeedPage>(
    `/feed/${video.id}/related?session_id=${sessionId}&limit=${PAGE_SIZE}`,
  );
  const items = related.status === 200 ? related.body.items : [];
  if (related.status !== 200)
    problem(record, "watch", "request_failed", failure("The related list", related));
  else if (items.length === 0 && emptyIsProblem(record, input.design, 1))
    problem(
      record,
      "watch",
      "empty_related",
      `The related list of ${video.external_id} was empty (recommender ${related.body.recommender}).`,
    );
  else {
    await trackRelatedList(events, video, items);
    act("load_related");
  }

  const plan = input.model.watch(cardOf(video, 0).video);
  await play(events, video, plan, act);
  let spentMs = plan.playSeconds * 1000 + plan.actions.filter((a) => a.kind === "pause").length * 3000;

  const next = input.model.nextStep(items.map(cardOf));
  if (next.choice !== null) {
    spentMs += next.choice.dwellMs;
    await seeCards(events, items, next.choice.scrolledTo, "related", next.choice.dwellMs, act);
  }
  if (next.kind === "related") {
    const target = items[next.choice.click.position];
    if (target) {
      await trackRelatedClick(events, video, target, next.choice.click.position);
      await leave(events, path, `/watch/${target.id}`, "watch", spentMs);
      act("click_related_card", "follow_link", "leave_page");
      await events.flush();
      return { video: target, spentMs, failed: false };
    }
  }
  await leave(events, path, "/", "watch", spentMs);
  act("follow_link", "leave_page");
  await events.flush();
  return { video: null, spentMs, failed: false };
}

/** Answers every survey pending at this point; false when the participant could not go on. */
async function answerPending(
  client: ParticipantClient,
  input: JourneyInput,
  record: JourneyRecord,
  sessionId: string,
  session: number,
  when: "start" | "after",
): Promise<boolean> {
  for (let i = 0; i < MAX_SURVEYS_IN_A_ROW; i++) {
    const pending = await client.get<PendingSurvey>(`/api/v1/surveys/pending?session_id=${sessionId}`);
    if (pending.status !== 200) {
      problem(record, "survey", "request_failed", failure("The pending survey", pending));
      return false;
    }
    if (pending.body === null) return true;
    const { survey, about_session_id } = pending.body;
    record.surveys.push({ id: survey.id, name: survey.name, kind: survey.kind, session, when });
    const { answers } = input.model.answerSurvey(survey.questions);
    const r = await client.post(`/api/v1/surveys/${survey.id}/responses`, {
      session_id: sessionId,
      about_session_id,
      answers,
    });
    if (r.status !== 201) {
      problem(record, "survey", "request_failed", failure(`Answering "${survey.name}"`, r));
      return false;
    }
  }
  problem(record, "survey", "survey_out_of_order", "Surveys kept coming after five answered in a row.");
  return false;
}
