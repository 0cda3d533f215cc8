import { describe, expect, it } from "vitest";
import { AUDIT_ACTIONS, auditActionLabel } from "./audit-actions.ts";

describe("the audit log's actions", () => {
  it("gives every action words of its own, never its code", () => {
    const labels = Object.entries(AUDIT_ACTIONS);
    for (const [action, label] of labels) {
      expect(auditActionLabel(action)).toBe(label);
      expect(label).not.toContain(action);
      expect(label).toMatch(/^[A-Z]/);
    }
    expect(new Set(labels.map(([, label]) => label)).size).toBe(labels.length);
  });

  it("keeps the code of an entry whose action is no longer listed, and never reads inherited names", () => {
    expect(auditActionLabel("experiment.archive")).toBe("experiment.archive");
    expect(auditActionLabel("toString")).toBe("toString");
  });
});
