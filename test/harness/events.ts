import { randomUUID } from "node:crypto";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
import { isRetryableStatus } from "@feedlab/schemas/events/retry.ts";
import type { Client } from "./app.ts";

let clock = Date.UTC(2026, 10, 21, 9, 0, 0);

/** A valid wire event of the type (example payload), with a fresh event_id and a later timestamp. */
export function wireEvent(type: EventType, overrides: Record<string, unknown> = {}) {
  clock += 250;
  return {
    event_id: randomUUID(),
    event_type: type,
    timestamp: new Date(clock).toISOString(),
    payload: EXAMPLE_PAYLOADS[type],
    ...exampleRowFields(type),
    ...overrides,
  };
}

export interface Joined {
  readonly client: Client;
  readonly userId: string;
  readonly sessionId: string;
}

/** A participant who joined the experiment and registered a session. */
export async function joinWithSession(
  client: Client,
  experimentId: string,
  loginId: string,
): Promise<Joined> {
  const join = await client.post<{ user_id: string }>("/api/v1/participants/join", {
    experiment_id: experimentId,
    login_id: loginId,
  });
  if (join.status !== 200) throw new Error(`join failed: ${join.status} ${JSON.stringify(join.body)}`);
  const sessionId = randomUUID();
  const s = await client.post("/sessions", { session_id: sessionId });
  if (s.status !== 201) throw new Error(`session failed: ${s.status}`);
  return { client, userId: join.body.user_id, sessionId };
}

export interface BatchReply {
  accepted: number;
  rejected: { index: number; code: string; message: string; field?: string }[];
  position: string;
}

/** Posts one batch and answers whatever the server said (for tests of the answers themselves). */
export const sendEvents = (p: Joined, events: unknown[]) =>
  p.client.post<BatchReply>("/api/v1/events", { session_id: p.sessionId, events });

/**
 * Posts one batch as the browser's tracker does: a batch the server could not take now (a 503 when
 * the log did not acknowledge in time, a 429) is sent again, with the same event ids, until it is
 * accepted; any other refusal throws. A test that reads the log's position or the read models
 * afterwards must deliver this way: a send the log answered late can still land in the log after
 * a 503, so a batch whose answer is ignored may be stored or not, now or later.
 */
export async function deliverEvents(p: Joined, events: unknown[]): Promise<BatchReply> {
  for (let attempt = 1; ; attempt++) {
    const r = await sendEvents(p, events);
    if (r.status === 202) return r.body;
    if (!isRetryableStatus(r.status) || attempt >= 10)
      throw new Error(`events batch refused: ${r.status} ${JSON.stringify(r.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** Math.min(attempt, 5)));
  }
}
