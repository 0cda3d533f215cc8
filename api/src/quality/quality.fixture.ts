import { randomUUID } from "node:crypto";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import type { Client, TestApp } from "../../../test/harness/app.ts";
import type { Joined } from "../../../test/harness/events.ts";

/** Participants with known behaviour, planted through the HTTP contract (docs/quality.md's measures). */

/** One single-choice item of the 1-5 agreement scale. */
const item = (id: string, text: string, attention_answer?: number) => ({
  id,
  text,
  type: "single" as const,
  answers: ["Strongly disagree", "Disagree", "Neither", "Agree", "Strongly agree"].map((t, i) => ({
    id: `${id}-${i + 1}`,
    text: t,
    value: i + 1,
  })),
  ...(attention_answer === undefined ? {} : { attention_answer }),
});

/** Five items on one scale and an attention check on the same scale ("choose Agree"): six questions. */
export const QUALITY_SURVEY = [
  item("q1", "The feed showed videos I liked."),
  item("q2", "I would use this site again."),
  item("att", "To show you are reading, choose “Agree” here.", 4),
  item("q3", "The videos were easy to find."),
  item("q4", "I watched videos I would not have picked."),
  item("q5", "The page was pleasant to use."),
];

/** Answers to QUALITY_SURVEY: the five items' values in order, and the check's. */
export function surveyAnswers(values: readonly [number, number, number, number, number], check: number) {
  const [a, b, c, d, e] = values;
  return [
    ["q1", a],
    ["q2", b],
    ["att", check],
    ["q3", c],
    ["q4", d],
    ["q5", e],
  ].map(([id, v]) => ({ questionId: id, selections: [`${id}-${v}`], textInput: null }));
}

/** What a planted session does. */
export interface Behaviour {
  /** SESSION_START's viewport width (default 1280: a desktop). */
  readonly viewport?: number;
  /** MOUSE_MOVEMENT every 5 s (default), or SCROLL instead. */
  readonly pointer?: boolean;
  /** Hidden from 100.5 s to 300 s, then back for 20 s. */
  readonly hidden?: boolean;
}

/**
 * A realistic session, times in seconds from its start: SESSION_START at 0, PAGE_LOAD at 0.5, mouse
 * (or scroll) telemetry every 5 s to 100 s, a video played from 20 s to 50 s (progress every 5 s); then
 * either the page closes at 120 s (PAGE_EXIT, SESSION_END 0.2 s later), or (hidden) the tab is hidden
 * at 100.5 s, visible again at 300 s, telemetry to 315 s and the page closes at 320 s. Numbered by `seq`.
 * Active seconds: 120 (120.5 hidden); visit 120.2 s (320.2 s); playback 30 s, all visible.
 */
export function plantedSession(b: Behaviour, start: number) {
  const events: [number, EventType, Record<string, unknown>][] = [];
  const tick = (t: number) =>
    events.push(
      b.pointer === false
        ? [t, "SCROLL", { scrollY: t * 10, scrollPercent: 10, maxScrollPercent: 10, pageHeight: 4000 }]
        : [t, "MOUSE_MOVEMENT", { ...EXAMPLE_PAYLOADS.MOUSE_MOVEMENT, context: "feed" }],
    );
  events.push([
    0,
    "SESSION_START",
    {
      ...EXAMPLE_PAYLOADS.SESSION_START,
      environment: {
        ...EXAMPLE_PAYLOADS.SESSION_START.environment,
        viewport: { width: b.viewport ?? 1280, height: 720 },
      },
    },
  ]);
  events.push([0.5, "PAGE_LOAD", { url: "https://study.example.org/", pageType: "feed" }]);
  for (let t = 5; t <= 100; t += 5) tick(t);
  events.push([20, "VIDEO_PLAY", { currentTime: 0, duration: 60, playbackRate: 1 }]);
  for (let t = 25; t <= 45; t += 5)
    events.push([t, "VIDEO_PROGRESS", { currentTime: t - 20, duration: 60, progress: (t - 20) / 60 }]);
  events.push([50, "VIDEO_PAUSE", { currentTime: 30, duration: 60, watchedDuration: 30 }]);
  let end = 120;
  if (b.hidden) {
    events.push([100.5, "VISIBILITY_CHANGE", { visible: false, visibilityState: "hidden" }]);
    events.push([300, "VISIBILITY_CHANGE", { visible: true, visibilityState: "visible" }]);
    for (let t = 305; t <= 315; t += 5) tick(t);
    end = 320;
  }
  events.push([
    end,
    "PAGE_EXIT",
    { url: "https://study.example.org/", pageType: "feed", dwellTimeMs: end * 1000, dwellTimeSec: end },
  ]);
  events.push([end + 0.2, "SESSION_END", { sessionId: "s" }]);
  // Stable by time: at equal times, the order above (a progress tick after the mouse's).
  const ordered = events.map((e, i) => ({ e, i })).sort((x, y) => x.e[0] - y.e[0] || x.i - y.i);
  return ordered.map(({ e: [t, type, payload] }, i) => ({
    event_id: randomUUID(),
    event_type: type,
    timestamp: new Date(start + t * 1000).toISOString(),
    ...exampleRowFields(type),
    payload,
    seq: i + 1,
  }));
}

/** A participant who joined (with recruiting parameters when given) and registered a session. */
export async function joinWith(
  app: TestApp,
  experimentId: string,
  loginId: string,
  recruiting?: Record<string, string>,
): Promise<Joined> {
  const client: Client = app.client();
  const join = await client.post<{ user_id: string }>("/api/v1/participants/join", {
    experiment_id: experimentId,
    login_id: loginId,
    ...(recruiting ? { recruiting } : {}),
  });
  if (join.status !== 200) throw new Error(`join failed: ${join.status} ${JSON.stringify(join.body)}`);
  const sessionId = randomUUID();
  const s = await client.post("/sessions", { session_id: sessionId });
  if (s.status !== 201) throw new Error(`session failed: ${s.status}`);
  return { client, userId: join.body.user_id, sessionId };
}
