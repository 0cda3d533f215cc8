import { randomUUID } from "node:crypto";
import { type EventType, EXAMPLE_PAYLOADS, exampleRowFields } from "@feedlab/schemas";
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

export const sendEvents = (p: Joined, events: unknown[]) =>
  p.client.post<BatchReply>("/api/v1/events", { session_id: p.sessionId, events });
