import { describe, expect, it } from "vitest";
import { armOf, joinLink, STATUS_FILTERS, statusOf, statusTone, surveysOf } from "./participants.ts";

const LINK = "https://study.example/join/e1";
const AT = "2026-11-25T10:00:00.000Z";

describe("a participant as the console's list shows them", () => {
  it("gives each participant a join link with their escaped login ID, and the signature when links are signed", () => {
    expect(joinLink(LINK, { login_id: "a b&c", join_sig: null })).toBe(`${LINK}?login_id=a%20b%26c`);
    expect(joinLink(LINK, { login_id: "p1", join_sig: "abc" })).toBe(`${LINK}?login_id=p1&sig=abc`);
  });

  it("names the arm, a dash before assignment, and a deleted arm as deleted", () => {
    const names = new Map([["g1", "Control"]]);
    expect(armOf(names, { group_id: "g1" })).toBe("Control");
    expect(armOf(names, { group_id: "" })).toBe("—");
    expect(armOf(names, { group_id: "gone" })).toBe("(deleted arm)");
  });

  it("says where a participant stands, finishing and declining before being active", () => {
    const p = (
      status: "joined" | "started" | "lapsed" | "declined" | "finished",
      active_now = false,
      consented_at: string | null = null,
    ) => ({
      status,
      active_now,
      consented_at,
    });
    expect(statusOf(p("finished", true, AT))).toBe("Finished");
    expect(statusOf(p("declined", true))).toBe("Declined consent");
    expect(statusOf(p("started", true, AT))).toBe("Active now");
    expect(statusOf(p("started", false, AT))).toBe("Consented, started");
    expect(statusOf(p("started"))).toBe("Started");
    expect(statusOf(p("joined", false, AT))).toBe("Consented");
    expect(statusOf(p("joined"))).toBe("Joined");
    expect(statusOf({ ...p("started", true, AT), simulated: true })).toBe("Consented, started");
    expect(statusOf(p("lapsed", true, AT))).toBe("Lapsed");
  });

  it("marks a lapsed participant's badge as a loss and offers lapsed in the status filter", () => {
    expect(statusTone({ status: "lapsed", active_now: true })).toBe("bad");
    expect(statusTone({ status: "finished", active_now: false })).toBe("good");
    expect(statusTone({ status: "started", active_now: true })).toBe("info");
    expect(statusTone({ status: "started", active_now: true, simulated: true })).toBe("");
    expect(STATUS_FILTERS.lapsed).toMatch(/^Lapsed/);
  });

  it("counts the surveys answered and closed, or shows a dash when there were none", () => {
    expect(surveysOf({ surveys_answered: 2, surveys_dismissed: 1 })).toBe("2 answered · 1 closed");
    expect(surveysOf({ surveys_answered: 0, surveys_dismissed: 3 })).toBe("3 closed");
    expect(surveysOf({ surveys_answered: 0, surveys_dismissed: 0 })).toBe("—");
  });
});
