import { randomUUID } from "node:crypto";
import { EXAMPLE_PAYLOADS, type LoggedEvent } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { decodePosition, type EventLog, LogUnavailableError } from "../log/event-log.ts";
import { createIntake } from "./intake.pipeline.ts";
import { sessionContext } from "./session.fixture.ts";

const session = sessionContext();
const owner = session.owner;

const pageLoad = () => ({
  event_id: randomUUID(),
  event_type: "PAGE_LOAD",
  timestamp: "2026-11-27T10:00:00.000Z",
  payload: EXAMPLE_PAYLOADS.PAGE_LOAD,
});

/** Intake over a log that records what it was asked to append, at partition 0 from offset 0. */
function intakeWith(append?: EventLog["append"]) {
  const appended: LoggedEvent[][] = [];
  const log: Pick<EventLog, "append"> = {
    append:
      append ??
      (async (events) => {
        appended.push([...events]);
        return { position: new Map([[0, appended.flat().length - 1]]), appended: events.length };
      }),
  };
  const receivedAt = new Date("2026-11-27T10:00:02.000Z");
  const intake = createIntake({
    log,
    sessions: async (id) => (id === session.session_id ? session : null),
    now: () => receivedAt,
  });
  return { intake, appended };
}

describe("intake of a batch (api.md, POST /api/v1/events)", () => {
  it("refuses the whole batch with foreign_session and appends nothing when the session is another participant's", async () => {
    const { intake, appended } = intakeWith();
    const outcome = await intake(randomUUID(), session.session_id, [pageLoad()]);
    expect(outcome).toMatchObject({ kind: "refused", refusal: { code: "foreign_session" } });
    expect(appended).toEqual([]);
  });

  it("refuses the whole batch with unknown_session and appends nothing when no session has that id", async () => {
    const { intake, appended } = intakeWith();
    const outcome = await intake(owner, randomUUID(), [pageLoad()]);
    expect(outcome).toMatchObject({ kind: "refused", refusal: { code: "unknown_session" } });
    expect(appended).toEqual([]);
  });

  it("stores the valid events stamped with the session and reports each rejected one by index and code, when a batch mixes both", async () => {
    const { intake, appended } = intakeWith();
    const good = [pageLoad(), pageLoad()];
    const outcome = await intake(owner, session.session_id, [
      good[0],
      "not an object",
      { ...pageLoad(), event_type: "VIDEO_TELEPORT" },
      good[1],
    ]);
    expect(outcome.kind).toBe("accepted");
    if (outcome.kind !== "accepted") return;
    expect(outcome.result.accepted).toBe(2);
    expect(outcome.result.rejected).toEqual([
      { index: 1, code: "invalid_event", message: "An event is a JSON object." },
      { index: 2, code: "unknown_event_type", message: expect.any(String), field: "event_type" },
    ]);
    expect(appended).toHaveLength(1);
    expect(appended[0]?.map((e) => e.event_id)).toEqual(good.map((e) => e.event_id));
    expect(appended[0]?.[0]).toMatchObject({
      user_id: owner,
      session_id: session.session_id,
      received_at: "2026-11-27T10:00:02.000Z",
    });
    expect(decodePosition(outcome.result.position)).toEqual(new Map([[0, 1]]));
  });

  it("appends nothing and answers 0 accepted with every rejection when no event in the batch is valid", async () => {
    const { intake, appended } = intakeWith();
    const outcome = await intake(owner, session.session_id, [{ ...pageLoad(), surprise: 1 }]);
    expect(outcome).toMatchObject({
      kind: "accepted",
      result: { accepted: 0, rejected: [{ index: 0, code: "unknown_field", field: "surprise" }] },
    });
    expect(appended).toEqual([]);
  });

  it("throws the log's LogUnavailableError, acknowledging nothing, when the log cannot take the batch", async () => {
    const { intake } = intakeWith(async () => {
      throw new LogUnavailableError("brokers away");
    });
    await expect(intake(owner, session.session_id, [pageLoad()])).rejects.toBeInstanceOf(LogUnavailableError);
  });
});
