import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { RESPONSE_CSV_COLUMNS, responseCsvRecords } from "./responses.csv.ts";

const base = {
  id: "11111111-1111-4111-8111-111111111111",
  login_id: "P-001",
  about_session_id: null,
  created_at: new Date(Date.UTC(2026, 2, 4, 5, 6, 7, 89)),
};

describe("responseCsvRecords", () => {
  it("writes one CRLF record per answer with empty about_session_id and text_input where the spec says", () => {
    const csv = responseCsvRecords({
      ...base,
      answers: [
        {
          questionId: "mood",
          questionText: "How?",
          selections: [{ id: "ok", text: "Okay", value: 1 }],
          textInput: null,
        },
        { questionId: "why", questionText: "Why?", selections: [], textInput: "Because" },
      ],
    });
    expect(csv).toBe(
      [
        `${base.id},P-001,,2026-03-04T05:06:07.089Z,mood,How?,"[{""id"":""ok"",""text"":""Okay"",""value"":1}]",\r\n`,
        `${base.id},P-001,,2026-03-04T05:06:07.089Z,why,Why?,[],Because\r\n`,
      ].join(""),
    );
  });

  it("quotes fields holding a comma, quote, CR or LF and doubles the quotes, so a parser reads them back", () => {
    const nasty = 'She said "hi",\r\nthen left\n';
    const csv = responseCsvRecords({
      ...base,
      login_id: 'login,"x"',
      about_session_id: "22222222-2222-4222-8222-222222222222",
      answers: [
        {
          questionId: "q,1",
          questionText: nasty,
          selections: [
            { id: "a", text: 'A "quoted", text', value: -2.5 },
            { id: "b", text: "B", value: 0 },
          ],
          textInput: null,
        },
        { questionId: "t", questionText: "plain", selections: [], textInput: nasty },
      ],
    });
    const rows: string[][] = parse(csv, { relax_column_count: false });
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.length === RESPONSE_CSV_COLUMNS.length)).toBe(true);
    const [first, second] = rows;
    expect(first?.[1]).toBe('login,"x"');
    expect(first?.[2]).toBe("22222222-2222-4222-8222-222222222222");
    expect(first?.[4]).toBe("q,1");
    expect(first?.[5]).toBe(nasty);
    // selections: JSON with the values kept as numbers.
    expect(JSON.parse(first?.[6] ?? "")).toEqual([
      { id: "a", text: 'A "quoted", text', value: -2.5 },
      { id: "b", text: "B", value: 0 },
    ]);
    expect(first?.[7]).toBe("");
    expect(second?.[6]).toBe("[]");
    expect(second?.[7]).toBe(nasty);
  });

  it("writes nothing for a response without answers", () => {
    expect(responseCsvRecords({ ...base, answers: [] })).toBe("");
  });
});
