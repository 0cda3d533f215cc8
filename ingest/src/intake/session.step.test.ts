import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sessionContext } from "./session.fixture.ts";
import { checkSession, type SessionLookup } from "./session.step.ts";

const session = sessionContext();
const owner = session.owner;

/** The api's sessions, as the step sees them: one known session. */
const lookup: SessionLookup = async (id) => (id === session.session_id ? session : null);

describe("the session step (api.md, POST /api/v1/events: an unknown or foreign session -> 4xx, nothing stored)", () => {
  it("answers ok with the session's stamping context, without its owner, when the session is the sender's own", async () => {
    const result = await checkSession(lookup, session.session_id, owner);
    const { owner: _owner, ...context } = session;
    expect(result).toEqual({ kind: "ok", value: context });
  });

  it("drops the batch with foreign_session (403) when the session was registered by another participant", async () => {
    const result = await checkSession(lookup, session.session_id, randomUUID());
    expect(result).toMatchObject({ kind: "drop", code: "foreign_session" });
  });

  it("drops the batch with unknown_session (404) when no session has that id", async () => {
    const result = await checkSession(lookup, randomUUID(), owner);
    expect(result).toMatchObject({ kind: "drop", code: "unknown_session" });
  });
});
