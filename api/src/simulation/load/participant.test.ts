import { describe, expect, it } from "vitest";
import { createParticipantModel } from "../behaviour.ts";
import { WINDOW_MARGIN_MS } from "../sessions.ts";
import { POOL } from "../simulation.fixture.ts";
import { followSchedule } from "./participant.ts";

const NOW = Date.parse("2026-03-01T12:00:00Z");
const at = (ms: number) => new Date(NOW + ms).toISOString();
/** `/me`'s next window for `session`, opening in `opensIn` ms and 60 s long. */
const window = (session: number, opensIn: number, open = true) => ({
  next_session: { session, opens_at: at(opensIn), closes_at: at(opensIn + 60_000) },
  session_open: open,
});

describe("a load participant following a schedule", () => {
  const follow = () => followSchedule(createParticipantModel({ seed: 4, pool: POOL }), () => NOW);

  it("comes back once the next window opens, plus the margin, and only once per window", () => {
    const f = follow();
    expect(f.saw({ next_session: null, session_open: true })).toBeNull();
    const back = f.saw(window(2, 36_000));
    expect(back).toBeGreaterThanOrEqual(NOW + 36_000 + WINDOW_MARGIN_MS);
    expect(back).toBeLessThan(NOW + 36_000 + 30_000);
    expect(f.saw(window(2, 36_000))).toBeNull();
  });

  it("stays in a session its window let in until the next window, whatever /me still says of it", () => {
    const f = follow();
    f.saw(window(2, 0));
    f.began();
    // Session 2 has no event counted yet: /me still shows its own window, which it is in.
    expect(f.saw(window(2, -1000))).toBeNull();
    expect(f.saw(window(3, 36_000))).not.toBeNull();
  });

  it("comes back again when its session began before the window (it never counts)", () => {
    const f = follow();
    f.saw(window(2, 0));
    f.began();
    expect(f.saw(window(2, 5000, false))).toBeGreaterThanOrEqual(NOW + 5000 + WINDOW_MARGIN_MS);
  });
});
