import { randomUUID } from "node:crypto";
import type { TestApp } from "../../../test/harness/app.ts";
import type { Joined } from "../../../test/harness/events.ts";
import { PARTICIPANT_COOKIE } from "../auth/cookies.ts";

/**
 * A simulated participant made as the dry-run runner makes one (`createSimulated`, then a cookie of
 * their own), with a session registered: the harness's `sendEvents` sends their events, which intake
 * stamps `simulated: true`.
 */
export async function joinSimulated(app: TestApp, experimentId: string, loginId: string): Promise<Joined> {
  const { participants, auth } = app.runtime.services;
  const user = await participants.createSimulated(experimentId, loginId);
  const client = app.client();
  client.cookies.set(PARTICIPANT_COOKIE, (await auth.issueParticipantSession(user.user_id)).token);
  const sessionId = randomUUID();
  const s = await client.post("/sessions", { session_id: sessionId });
  if (s.status !== 201) throw new Error(`session failed: ${s.status} ${JSON.stringify(s.body)}`);
  return { client, userId: user.user_id, sessionId };
}
