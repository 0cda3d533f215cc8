import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ParticipantApi } from "../participant-api.ts";
import { PendingSurveys } from "./pending.svelte.ts";

const SESSION = "6f1c1f7e-8a52-4f7e-9a51-0d3b2c1e5a10";
const PRE = {
  survey: { id: "s-pre", kind: "pre", name: "Pre", questions: [] },
  forced: true,
  about_session_id: null,
};

type Answer = { status: number; body?: unknown } | "offline";

/** A participant client whose pending checks answer `answers` in turn (the last one repeats). */
function clientAnswering(...answers: Answer[]) {
  const calls: string[] = [];
  const client = new ParticipantApi(async (input) => {
    calls.push(String(input));
    const answer = answers[Math.min(calls.length, answers.length) - 1] ?? "offline";
    if (answer === "offline") throw new TypeError("Failed to fetch");
    return new Response(answer.body === undefined ? "" : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { "content-type": "application/json" },
    });
  });
  return { client, calls };
}

const unavailable = { status: 503, body: { error: { code: "unavailable", message: "Down." } } };

describe("the session's pending survey", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("keeps the page closed while the first check fails, retrying after 1, 2, 4 and 8 s, until it answers", async () => {
    const pending = new PendingSurveys();
    const { client, calls } = clientAnswering(unavailable, "offline", unavailable, {
      status: 200,
      body: PRE,
    });

    await pending.check(client, SESSION);
    expect(pending.checkingFor(SESSION)).toBe(true);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toHaveLength(3);
    expect(pending.checkingFor(SESSION)).toBe(true);
    await vi.advanceTimersByTimeAsync(4000);

    expect(calls).toHaveLength(4);
    expect(pending.checkingFor(SESSION)).toBe(false);
    expect(pending.shownFor(SESSION)).toMatchObject({ forced: true, survey: { id: "s-pre" } });
    expect(pending.unreachable).toBe(false);
    // Answered: nothing more is asked.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toHaveLength(4);
  });

  it("says the study cannot be reached after the fifth failure, goes on every 10 s, and recovers", async () => {
    const pending = new PendingSurveys();
    const { client, calls } = clientAnswering(...Array(7).fill(unavailable), { status: 200, body: null });

    await pending.check(client, SESSION);
    await vi.advanceTimersByTimeAsync(1000 + 2000 + 4000 + 7999);
    expect(calls).toHaveLength(4);
    expect(pending.unreachableFor(SESSION)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(5);
    expect(pending.unreachableFor(SESSION)).toBe(true);

    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toHaveLength(6);
    // "Try again": at once, and the background schedule starts over from it.
    await pending.check(client, SESSION);
    expect(calls).toHaveLength(7);
    expect(pending.unreachableFor(SESSION)).toBe(true);
    await vi.advanceTimersByTimeAsync(9999);
    expect(calls).toHaveLength(7);
    await vi.advanceTimersByTimeAsync(1);

    expect(calls).toHaveLength(8);
    expect(pending.checkingFor(SESSION)).toBe(false);
    expect(pending.unreachableFor(SESSION)).toBe(false);
    expect(pending.shownFor(SESSION)).toBeNull();
  });

  it("takes a 4xx as an answer: nothing due here, no retry", async () => {
    const pending = new PendingSurveys();
    const { client, calls } = clientAnswering({
      status: 403,
      body: { error: { code: "consent_required", message: "Consent first." } },
    });

    await pending.check(client, SESSION);
    await vi.advanceTimersByTimeAsync(60_000);

    expect(calls).toHaveLength(1);
    expect(pending.checkingFor(SESSION)).toBe(false);
    expect(pending.shownFor(SESSION)).toBeNull();
  });

  it("keeps the last answer when a later check fails, and does not retry it", async () => {
    const pending = new PendingSurveys();
    const { client, calls } = clientAnswering({ status: 200, body: PRE }, unavailable);

    await pending.check(client, SESSION);
    await pending.check(client, SESSION);
    await vi.advanceTimersByTimeAsync(60_000);

    expect(calls).toHaveLength(2);
    expect(pending.shownFor(SESSION)).toMatchObject({ survey: { id: "s-pre" } });
  });

  it("starts over for a new session: its first check blocks again", async () => {
    const pending = new PendingSurveys();
    const { client } = clientAnswering({ status: 200, body: null }, unavailable);
    await pending.check(client, SESSION);
    expect(pending.checkingFor(SESSION)).toBe(false);

    const next = "0b7f5c0e-2d7e-4c51-8f43-3b6f3a2f7d11";
    await pending.check(client, next);

    expect(pending.checkingFor(next)).toBe(true);
    expect(pending.checkingFor(SESSION)).toBe(true);
  });
});
