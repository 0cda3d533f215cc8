import { describe, expect, it } from "vitest";
import { ApiError } from "#lib/participant-api.ts";
import {
  formatFromNow,
  formatMoment,
  formatSoon,
  refusalOf,
  timeZoneName,
  waitingWindow,
} from "./session-window.ts";

const SESSION = "6f1c1f7e-8a52-4f7e-9a51-0d3b2c1e5a10";
const OPENS = "2025-03-04T13:00:00.000Z";
const CLOSES = "2025-03-06T13:00:00.000Z";
const progress = {
  sessions: 1,
  feed_minutes: 12,
  visit: 2,
  sessions_needed: 3,
  feed_minutes_needed: null,
};
const notOpen = new ApiError(409, "session_not_open", "Not open yet.", { opens_at: OPENS });

describe("a feed or watch request refused as before the schedule's window", () => {
  it("names the session it asked about and when the window opens", () => {
    expect(refusalOf(notOpen, { session_id: SESSION, limit: 20 })).toEqual({
      sessionId: SESSION,
      opensAt: OPENS,
    });
  });

  it("is no refusal for another error, or without the session or the opening time", () => {
    const conflict = new ApiError(409, "conflict", "Conflict.", { opens_at: OPENS });
    expect(refusalOf(conflict, { session_id: SESSION })).toBeNull();
    expect(refusalOf(notOpen, undefined)).toBeNull();
    expect(
      refusalOf(new ApiError(409, "session_not_open", "Not open yet."), { session_id: SESSION }),
    ).toBeNull();
  });
});

describe("the window a participant waits for", () => {
  const next = { session: 2, opens_at: OPENS, closes_at: CLOSES };

  it("is none while the page's session counts", () => {
    expect(waitingWindow({ session_open: true, next_session: next, progress }, null)).toBeNull();
  });

  it("is /me's next window when the session is before it", () => {
    expect(waitingWindow({ session_open: false, next_session: next, progress }, null)).toEqual({
      session: 2,
      opensAt: OPENS,
      closesAt: CLOSES,
    });
  });

  it("is the refused session's window, with no closing time, when /me names none", () => {
    const refused = { sessionId: SESSION, opensAt: OPENS };
    expect(waitingWindow({ session_open: true, next_session: null, progress }, refused)).toEqual({
      session: 2,
      opensAt: OPENS,
      closesAt: null,
    });
  });

  it("prefers /me's window to a refusal's", () => {
    const refused = { sessionId: SESSION, opensAt: "2025-03-04T12:59:00.000Z" };
    expect(waitingWindow({ session_open: true, next_session: next, progress }, refused)?.closesAt).toBe(
      CLOSES,
    );
  });

  it("is none when the session does not count but nothing says which window", () => {
    expect(waitingWindow({ session_open: false, next_session: null, progress }, null)).toBeNull();
  });
});

describe("the times the come-back page says", () => {
  it("says the moment in the participant's language at the browser's time zone", () => {
    expect(formatMoment(OPENS, "en", "Europe/Berlin")).toBe("Tuesday, March 4, 2025 at 2:00 PM");
    expect(formatMoment(OPENS, "de", "Europe/Berlin")).toBe("Dienstag, 4. März 2025 um 14:00");
    expect(formatMoment(OPENS, "en", "America/New_York")).toBe("Tuesday, March 4, 2025 at 8:00 AM");
  });

  it("falls back to English for a tag Intl refuses, and says nothing of an invalid timestamp", () => {
    expect(formatMoment(OPENS, "not a tag!", "UTC")).toBe("Tuesday, March 4, 2025 at 1:00 PM");
    expect(formatMoment("soon", "en", "UTC")).toBe("");
  });

  it("names the time zone, with its IANA id", () => {
    const at = Date.parse(OPENS);
    expect(timeZoneName("en", "Europe/Berlin", at)).toBe("Central European Time (Europe/Berlin)");
    expect(timeZoneName("de", "Europe/Berlin", at)).toBe("Mitteleuropäische Zeit (Europe/Berlin)");
    expect(timeZoneName("en", "UTC", at)).toBe("Coordinated Universal Time");
  });

  it("says how far off it is in the largest fitting unit", () => {
    const at = Date.parse(OPENS);
    const from = (ms: number, lang = "en") => formatFromNow(OPENS, at - ms, lang);
    expect(from(3 * 3_600_000 - 20 * 60_000)).toBe("in 3 hours");
    expect(from(2 * 60_000 + 10_000)).toBe("in 2 minutes");
    expect(from(45_000)).toBe("in 45 seconds");
    expect(from(80 * 60_000)).toBe("in 80 minutes");
    expect(from(30 * 3_600_000)).toBe("in 30 hours");
    expect(from(3 * 86_400_000)).toBe("in 3 days");
    expect(from(3 * 3_600_000, "fr")).toBe("dans 3 heures");
  });

  it("gives the top bar the weekday within six days, else the date", () => {
    const at = Date.parse(OPENS);
    expect(formatSoon(OPENS, at - 86_400_000, "en", "UTC")).toBe("Tue 1:00 PM");
    expect(formatSoon(OPENS, at - 10 * 86_400_000, "en", "UTC")).toBe("Mar 4, 1:00 PM");
    expect(formatSoon(OPENS, at - 86_400_000, "de", "Europe/Berlin")).toBe("Di., 14:00");
  });
});
