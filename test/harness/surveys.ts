import { randomUUID } from "node:crypto";
import type { AdminSurvey, JoinResult } from "@feedlab/schemas";
import type { Client, TestApp } from "./app.ts";
import { wireEvent } from "./events.ts";

/** A questionnaire with one question of each type; option values are Likert-like codes. */
export function sampleQuestions() {
  return [
    {
      id: "mood",
      text: "How do you feel right now?",
      type: "single" as const,
      answers: [
        { id: "good", text: "Good", value: 2 },
        { id: "ok", text: "Okay", value: 1 },
        { id: "bad", text: "Bad", value: -1.5 },
      ],
    },
    {
      id: "topics",
      text: "Which topics interest you?",
      type: "multi" as const,
      minSelect: 1,
      maxSelect: 2,
      answers: [
        { id: "food", text: "Food", value: 1 },
        { id: "travel", text: "Travel", value: 2 },
        { id: "science", text: "Science", value: 3 },
      ],
    },
    { id: "why", text: "Anything else, in your words?", type: "text" as const, answers: [] },
  ];
}

/** Answers that satisfy `sampleQuestions()`. */
export function sampleAnswers(text = "Nothing, thanks.") {
  return [
    { questionId: "mood", selections: ["ok"], textInput: null },
    { questionId: "topics", selections: ["food", "science"], textInput: null },
    { questionId: "why", selections: [], textInput: text },
  ];
}

async function expectStatus<T>(p: Promise<{ status: number; body: unknown }>, status: number): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body as T;
}

/** Creates a survey through the admin API (201 expected). */
export function createSurvey(
  admin: Client,
  experimentId: string,
  options: { kind: string; name?: string | Record<string, string>; questions?: unknown; is_active?: boolean },
): Promise<AdminSurvey> {
  return expectStatus<AdminSurvey>(
    admin.post(`/api/v1/admin/experiments/${experimentId}/surveys`, {
      kind: options.kind,
      name: options.name ?? `${options.kind} survey`,
      questions: options.questions ?? sampleQuestions(),
      ...(options.is_active === undefined ? {} : { is_active: options.is_active }),
    }),
    201,
  );
}

export interface JoinedParticipant {
  readonly client: Client;
  readonly user: JoinResult;
  /** The session registered at join. */
  readonly sessionId: string;
}

/** Registers a new client-generated session for the participant and returns its id. */
export async function newSession(client: Client): Promise<string> {
  // Sessions are ordered by their registration time (milliseconds): keep consecutive ones apart.
  await new Promise((resolve) => setTimeout(resolve, 3));
  const id = randomUUID();
  await expectStatus(client.post("/sessions", { session_id: id }), 201);
  return id;
}

/**
 * A visit as a browser makes one: its first event sent in a session (a new one unless given), and
 * counted once the projector has it. Completion counts a session only once the server received an
 * event of it (api.md "Trust boundaries (wave 4)"); a registered session alone does not count.
 */
export async function visit(app: TestApp, client: Client, sessionId?: string): Promise<string> {
  const id = sessionId ?? (await newSession(client));
  const sent = await client.post("/api/v1/events", { session_id: id, events: [wireEvent("WINDOW_FOCUS")] });
  if (sent.status !== 202) throw new Error(`events answered ${sent.status}: ${sent.text}`);
  if (!(await app.runtime.progress.waitFor(await app.runtime.eventLog.position(), 10_000)))
    throw new Error("the projector did not catch up within 10 s");
  return id;
}

/** Joins the (running or completed) experiment as `loginId` and registers a first session. */
export async function joinParticipant(
  app: TestApp,
  experimentId: string,
  loginId: string,
): Promise<JoinedParticipant> {
  const client = app.client();
  const user = await expectStatus<JoinResult>(
    client.post("/api/v1/participants/join", { experiment_id: experimentId, login_id: loginId }),
    200,
  );
  return { client, user, sessionId: await newSession(client) };
}
