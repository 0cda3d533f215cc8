import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../types.ts";
import { describeDetails, describeTarget, idsOf } from "./audit.ts";

const entry = (action: string, target: string | null, details: Record<string, unknown>): AuditEntry => ({
  cursor: 1,
  at: "2026-11-27T10:00:00.000Z",
  admin: "admin",
  action,
  target,
  details,
});

const pilot = { kind: "experiment", id: "e1", name: "Pilot" };

describe("audit entries in words", () => {
  it("names an arm in its experiment, innermost first, with the ids beside", () => {
    const e = entry("arm.update", "a1", { about: [pilot, { kind: "arm", id: "a1", name: "Control" }] });
    expect(describeTarget(e)).toBe("Arm “Control” in experiment “Pilot”");
    expect(idsOf(e)).toEqual([
      { kind: "arm", id: "a1" },
      { kind: "experiment", id: "e1" },
    ]);
  });

  it("names a participant by login while they exist, and says erased once they are gone", () => {
    const kept = entry("participant.exclusion", "u1", {
      about: [pilot, { kind: "participant", id: "u1", name: "P-7" }],
    });
    expect(describeTarget(kept)).toBe("Participant “P-7” in experiment “Pilot”");
    const erased = entry("participant.erase", "u1", { about: [pilot, { kind: "participant", id: "u1" }] });
    expect(describeTarget(erased)).toBe("An erased participant in experiment “Pilot”");
  });

  it("names the admin of admin and sign-in entries, and falls back to the bare id on older entries", () => {
    expect(describeTarget(entry("admin.add", "erin", {}))).toBe("Admin “erin”");
    expect(idsOf(entry("admin.add", "erin", {}))).toEqual([]);
    const old = entry("arm.delete", "a9", { address: "127.0.0.1" });
    expect(describeTarget(old)).toBeNull();
    expect(idsOf(old)).toEqual([{ kind: null, id: "a9" }]);
  });

  it("shows an arm's changed fields only, before and after, in words", () => {
    const e = entry("arm.update", "a1", {
      fields: ["algorithm_config.feed", "ui_config.watch"],
      changes: [
        { field: "algorithm_config.feed", from: "Recency", to: "Popularity" },
        { field: "ui_config.watch", from: "grid-desktop", to: "Tall cards" },
      ],
      address: "10.0.0.2",
    });
    expect(describeDetails(e)).toEqual([
      "feed recommender: Recency → Popularity",
      "watch layout: grid-desktop → Tall cards",
      "From 10.0.0.2",
    ]);
    expect(describeDetails(entry("arm.update", "a1", { fields: [], changes: [] }))).toEqual([
      "Nothing changed",
    ]);
  });

  it("says arm, not group, for the fields sent and counts an erasure's rows", () => {
    expect(describeDetails(entry("participant.add", "e1", { fields: ["login_id", "group_id"] }))).toEqual([
      "Fields: login ID, arm",
    ]);
    expect(
      describeDetails(
        entry("participant.erase", "u1", {
          rows: { participants: 1, sessions: 2, survey_responses: 1, log_records: 40, read_models: {} },
        }),
      ),
    ).toEqual(["Removed 1 participant, 2 sessions, 1 survey response, 40 logged events"]);
    expect(describeDetails(entry("export.events", "e1", { format: "csv" }))).toEqual(["format: csv"]);
  });
});
