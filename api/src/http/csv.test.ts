import { describe, expect, it } from "vitest";
import { csvField } from "./csv.ts";

/** api.md, Validity rules: exports are exact; the spreadsheet-safe variant escapes formulas, never numbers. */
describe("a CSV field", () => {
  it("is exact without the spreadsheet-safe variant", () => {
    for (const text of ["-3", "=1+1", "@user", "+1"]) expect(csvField(text)).toBe(text);
  });

  it("escapes text a spreadsheet would run as a formula in the spreadsheet-safe variant", () => {
    expect(csvField("=HYPERLINK()", true)).toBe("'=HYPERLINK()");
    expect(csvField("@SUM(A1)", true)).toBe("'@SUM(A1)");
    expect(csvField("-2+3", true)).toBe("'-2+3");
    expect(csvField("+ok", true)).toBe("'+ok");
    expect(csvField("\tx", true)).toBe("'\tx");
  });

  it("leaves a number as it is even in the spreadsheet-safe variant, written as text or not", () => {
    for (const text of ["-3", "+1", "-0.5e3", "-.5", "+2.", "-1E-9"]) expect(csvField(text, true)).toBe(text);
    expect(csvField(-3, true)).toBe("-3");
  });
});
