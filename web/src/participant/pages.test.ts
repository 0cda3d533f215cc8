import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, participantApi } from "#lib/participant-api.ts";
import { participantSession } from "#lib/session.svelte.ts";
import type { ParticipantMe } from "#lib/types.ts";
import { loadPage, noteRefusal, routeOf } from "./pages.ts";

describe("the participant shell's routes", () => {
  it("maps / to the feed and /watch/{id} to the watch page with the id decoded", () => {
    expect(routeOf("/")).toEqual({ page: "feed" });
    expect(routeOf("/watch/abc-123")).toEqual({ page: "watch", id: "abc-123" });
    expect(routeOf("/watch/a%20b")).toEqual({ page: "watch", id: "a b" });
  });

  it("leaves every other path, and a malformed escape, to a full page load", () => {
    for (const path of ["/admin", "/join/x", "/watch", "/watch/", "/watch/a/b", "/watch/%E0%A4%A"]) {
      expect(routeOf(path)).toBeNull();
    }
  });
});

const OPENS = "2030-03-04T13:00:00.000Z";
const CLOSES = "2030-03-06T13:00:00.000Z";

/** A participant of a running study with a schedule, in session 1 of 3, who consented. */
function participant(overrides: Partial<ParticipantMe> = {}): ParticipantMe {
  return {
    user_id: "11111111-1111-4111-8111-111111111111",
    login_id: "p1",
    experiment_id: "22222222-2222-4222-8222-222222222222",
    experiment_status: "running",
    group_id: "33333333-3333-4333-8333-333333333333",
    algorithm_config: { feed: "random", watch: "random" },
    ui_config: { feed: "grid-desktop", watch: "grid-desktop" },
    status: "active",
    completion: null,
    consent: { text: "Agree?", version: "v1", consented_at: "2030-03-01T10:00:00.000Z", declined_at: null },
    experiment_name: "Pilot",
    progress: { sessions: 1, feed_minutes: 4, visit: 2, sessions_needed: 3, feed_minutes_needed: null },
    next_session: { session: 2, opens_at: OPENS, closes_at: CLOSES },
    session_open: false,
    email_reminders: false,
    simulated: false,
    language: "en",
    languages: ["en"],
    language_switch: false,
    ...overrides,
  };
}

/** The server answers /me with `me` and registers any session. */
function serverWith(me: ParticipantMe) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input), "http://feedlab.test");
      if (url.pathname === "/sessions") return new Response("{}", { status: 201 });
      if (url.pathname === "/api/v1/me") return Response.json(me);
      return Response.json({ error: { code: "not_found", message: "Not found." } }, { status: 404 });
    }),
  );
}

describe("the feed page of a study with a schedule", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("says when to come back, and nothing else, when the session is before the next window", async () => {
    serverWith(participant({ language: "de" }));

    expect(await loadPage({ page: "feed" })).toEqual({
      page: "study",
      step: {
        kind: "waiting",
        window: { session: 2, opensAt: OPENS, closesAt: CLOSES },
        language: "de",
      },
    });
  });

  it("shows the closing page, for the session whose window passed, when the participant lapsed", async () => {
    serverWith(participant({ status: "lapsed", next_session: null }));

    expect(await loadPage({ page: "watch", id: "v1" })).toEqual({
      page: "study",
      step: { kind: "lapsed", session: 2 },
    });
  });

  it("offers the e-mail field on the consent form when the study sends reminders", async () => {
    const consent = { text: "Agree?", version: "v1", consented_at: null, declined_at: null };
    serverWith(participant({ consent, email_reminders: true, session_open: true }));

    const loaded = await loadPage({ page: "feed" });

    expect(loaded.page === "study" && loaded.step).toMatchObject({ kind: "consent", emailReminders: true });
  });

  it("says when to come back once a feed request of the page's session was refused as before its window", async () => {
    serverWith(participant({ session_open: true, next_session: null }));
    const sessionId = await participantSession.ensure(participantApi);
    const opensAt = "2030-03-04T12:00:00.000Z";
    const refusal = new ApiError(409, "session_not_open", "Not open yet.", { opens_at: opensAt });

    expect(noteRefusal(refusal, { session_id: "another-session" })).toBe(false);
    expect(noteRefusal(refusal, { session_id: sessionId })).toBe(true);

    expect(await loadPage({ page: "feed" })).toEqual({
      page: "study",
      step: { kind: "waiting", window: { session: 2, opensAt, closesAt: null }, language: "en" },
    });
  });
});
