import { describe, expect, it } from "vitest";
import {
  checkForm,
  durationWords,
  fieldOfError,
  formOf,
  fromHours,
  nextRow,
  type ScheduleForm,
  toHours,
} from "./schedule.ts";

const form = (patch: Partial<ScheduleForm> = {}): ScheduleForm => ({
  rows: [{ opens: { amount: 1, unit: "days" }, closes: { amount: 2, unit: "days" } }],
  email: false,
  beforeClose: { amount: "", unit: "hours" },
  ...patch,
});

describe("durations typed in minutes, hours or days", () => {
  it("converts each unit to the hours the server takes", () => {
    expect(toHours(90, "minutes")).toBe(1.5);
    expect(toHours(6, "hours")).toBe(6);
    expect(toHours(2, "days")).toBe(48);
    expect(toHours(0.5, "days")).toBe(12);
  });

  it("rounds away floating-point dust", () => {
    expect(1.1 * 24).not.toBe(26.4);
    expect(toHours(1.1, "days")).toBe(26.4);
    expect(toHours(0.6, "minutes")).toBe(0.01);
  });

  it("shows stored hours in the largest unit that keeps them whole", () => {
    expect(fromHours(48)).toEqual({ amount: 2, unit: "days" });
    expect(fromHours(36)).toEqual({ amount: 36, unit: "hours" });
    expect(fromHours(1)).toEqual({ amount: 1, unit: "hours" });
    expect(fromHours(0.25)).toEqual({ amount: 15, unit: "minutes" });
    expect(fromHours(toHours(10, "minutes"))).toEqual({ amount: 10, unit: "minutes" });
    expect(fromHours(0.01)).toEqual({ amount: 0.6, unit: "minutes" });
    expect(fromHours(toHours(0.7, "minutes"))).toEqual({ amount: 0.7, unit: "minutes" });
    expect(fromHours(0.012345)).toEqual({ amount: 0.012345, unit: "hours" });
  });

  it("words a duration in the singular or plural", () => {
    expect(durationWords(24)).toBe("1 day");
    expect(durationWords(3)).toBe("3 hours");
    expect(durationWords(0.5)).toBe("30 minutes");
  });
});

describe("the form of a stored experiment", () => {
  it("reads each window into a row and the reminders into the checkbox and the second reminder", () => {
    const f = formOf(
      [
        { session: 2, opens_after_hours: 24, closes_after_hours: 48 },
        { session: 3, opens_after_hours: 0.5, closes_after_hours: 2 },
      ],
      { email: true, before_close_hours: 6 },
    );
    expect(f.rows).toEqual([
      { opens: { amount: 1, unit: "days" }, closes: { amount: 2, unit: "days" } },
      { opens: { amount: 30, unit: "minutes" }, closes: { amount: 2, unit: "hours" } },
    ]);
    expect(f.email).toBe(true);
    expect(f.beforeClose).toEqual({ amount: 6, unit: "hours" });
  });

  it("starts without windows or reminders when the experiment has none", () => {
    expect(formOf([], null)).toEqual({ rows: [], email: false, beforeClose: { amount: "", unit: "hours" } });
  });

  it("adds a session with the last window again, or 1 to 2 days for the first", () => {
    expect(nextRow([])).toEqual({ opens: { amount: 1, unit: "days" }, closes: { amount: 2, unit: "days" } });
    const last = {
      opens: { amount: 7, unit: "days" as const },
      closes: { amount: 9, unit: "days" as const },
    };
    const added = nextRow([last]);
    expect(added).toEqual(last);
    expect(added.opens).not.toBe(last.opens);
  });
});

describe("checking the form before it is saved", () => {
  it("numbers the windows from session 2 in order and sends hours, with reminders null when unticked", () => {
    const rows = [
      { opens: { amount: 1, unit: "days" as const }, closes: { amount: 36, unit: "hours" as const } },
      { opens: { amount: 30, unit: "minutes" as const }, closes: { amount: "90", unit: "minutes" as const } },
    ];
    expect(checkForm(form({ rows }))).toEqual({
      ok: true,
      body: {
        schedule: [
          { session: 2, opens_after_hours: 24, closes_after_hours: 36 },
          { session: 3, opens_after_hours: 0.5, closes_after_hours: 1.5 },
        ],
        reminders: null,
      },
    });
  });

  it("sends an empty schedule when every row is removed", () => {
    expect(checkForm(form({ rows: [] }))).toEqual({ ok: true, body: { schedule: [], reminders: null } });
  });

  it("refuses a window that closes when or before it opens, at its closing field", () => {
    const r = checkForm(
      form({ rows: [{ opens: { amount: 2, unit: "days" }, closes: { amount: 48, unit: "hours" } }] }),
    );
    expect(r).toEqual({
      ok: false,
      errors: { "schedule[0].closes_after_hours": "The window must close later than it opens (2 days)." },
    });
  });

  it("refuses an empty, non-numeric, too short or too long duration at its own field", () => {
    const r = checkForm(
      form({
        rows: [
          { opens: { amount: null, unit: "hours" }, closes: { amount: "x", unit: "hours" } },
          { opens: { amount: 0.5, unit: "minutes" }, closes: { amount: 4000, unit: "days" } },
        ],
      }),
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors["schedule[0].opens_after_hours"]).toMatch(/^Enter how long .* opens\.$/);
    expect(r.errors["schedule[0].closes_after_hours"]).toBe("Enter a number.");
    expect(r.errors["schedule[1].opens_after_hours"]).toMatch(/^Enter at least 36 seconds/);
    expect(r.errors["schedule[1].closes_after_hours"]).toMatch(/^Enter at most 10 years/);
  });

  it("sends e-mail reminders, with the second one in hours when it is set", () => {
    expect(checkForm(form({ email: true }))).toMatchObject({
      ok: true,
      body: { reminders: { email: true } },
    });
    const r = checkForm(form({ email: true, beforeClose: { amount: 90, unit: "minutes" } }));
    expect(r).toMatchObject({ ok: true, body: { reminders: { email: true, before_close_hours: 1.5 } } });
  });

  it("ignores the second reminder's value while e-mail is unticked", () => {
    const r = checkForm(form({ email: false, beforeClose: { amount: "x", unit: "hours" } }));
    expect(r).toMatchObject({ ok: true, body: { reminders: null } });
  });

  it("refuses a second reminder as long as the shortest window, naming that window's session", () => {
    const rows = [
      { opens: { amount: 1, unit: "days" as const }, closes: { amount: 3, unit: "days" as const } },
      { opens: { amount: 1, unit: "days" as const }, closes: { amount: 30, unit: "hours" as const } },
    ];
    const r = checkForm(form({ rows, email: true, beforeClose: { amount: 6, unit: "hours" } }));
    expect(r).toEqual({
      ok: false,
      errors: {
        "reminders.before_close_hours": "Must be shorter than every window: session 3's is open for 6 hours.",
      },
    });
    expect(checkForm(form({ rows, email: true, beforeClose: { amount: 5, unit: "hours" } })).ok).toBe(true);
  });

  it("compares the second reminder only with windows that close after they open", () => {
    const rows = [
      { opens: { amount: 1, unit: "days" as const }, closes: { amount: 3, unit: "days" as const } },
      { opens: { amount: 1, unit: "days" as const }, closes: { amount: 12, unit: "hours" as const } },
    ];
    const r = checkForm(form({ rows, email: true, beforeClose: { amount: 6, unit: "hours" } }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors)).toEqual(["schedule[1].closes_after_hours"]);
  });

  it("refuses e-mail reminders without a window to remind of", () => {
    const r = checkForm(form({ rows: [], email: true }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.reminders).toMatch(/add a later session first/);
  });
});

describe("where a server's 422 about the schedule or the reminders is shown", () => {
  it("puts a window's field message at that field", () => {
    expect(fieldOfError("invalid_schedule", "schedule[1].closes_after_hours", 2)).toBe(
      "schedule[1].closes_after_hours",
    );
    expect(fieldOfError("invalid_schedule", "schedule[0].opens_after_hours", 2)).toBe(
      "schedule[0].opens_after_hours",
    );
  });

  it("puts anything else of a window at its row, and a window the form no longer has at the list", () => {
    expect(fieldOfError("invalid_schedule", "schedule[1].session", 2)).toBe("schedule[1]");
    expect(fieldOfError("invalid_schedule", "schedule[1]", 2)).toBe("schedule[1]");
    expect(fieldOfError("invalid_schedule", "schedule[5].opens_after_hours", 2)).toBe("schedule");
    expect(fieldOfError("invalid_schedule", "schedule", 2)).toBe("schedule");
  });

  it("puts a reminders message at the second reminder or the checkbox, and a field-less one by its code", () => {
    expect(fieldOfError("invalid_reminders", "reminders.before_close_hours", 1)).toBe(
      "reminders.before_close_hours",
    );
    expect(fieldOfError("invalid_reminders", "reminders.email", 1)).toBe("reminders");
    expect(fieldOfError("invalid_reminders", undefined, 1)).toBe("reminders");
    expect(fieldOfError("invalid_schedule", undefined, 1)).toBe("schedule");
  });

  it("leaves an error about neither to the form's general message", () => {
    expect(fieldOfError("validation_error", "name", 1)).toBeNull();
    expect(fieldOfError("validation_error", undefined, 1)).toBeNull();
  });
});
