import { describe, expect, it } from "vitest";
import { parseImport } from "./videos.import.ts";

describe("parseImport", () => {
  it("reads CSV cells into typed video fields and leaves empty cells out", () => {
    const csv =
      "\uFEFFexternal_id,url,title,tags,duration_seconds,view_count,comments\n" +
      'a,/m/a.webm,"Title, with comma",x|y; z,12.5,300,"[{""author"":""A"",""text"":""B""}]"\n' +
      "b,/m/b.webm,Plain,,,,";
    const { rows } = parseImport(csv, "csv");
    expect(rows).toEqual([
      {
        external_id: "a",
        url: "/m/a.webm",
        title: "Title, with comma",
        tags: ["x", "y", "z"],
        duration_seconds: 12.5,
        view_count: 300,
        comments: [{ author: "A", text: "B" }],
      },
      { external_id: "b", url: "/m/b.webm", title: "Plain" },
    ]);
  });

  it("refuses a CSV header with columns that name no field, suggesting the field a misspelling means", () => {
    const csv = "external_id,url,titel,Channel Name,notes\na,/m/a.webm,T,C,x\n";
    type Refusal = { status: number; code: string; message: string; details: Record<string, unknown> };
    const error = (() => {
      try {
        parseImport(csv, "csv");
        return null;
      } catch (err) {
        return err as Refusal;
      }
    })();
    expect(error).toMatchObject({
      status: 422,
      code: "unknown_columns",
      details: {
        columns: ["titel", "Channel Name", "notes"],
        suggestions: { titel: "title", "Channel Name": "channel_name" },
      },
    });
    expect(error?.message).toContain('"titel" (did you mean "title"?)');
  });

  it("accepts a JSON array or an object with videos", () => {
    expect(parseImport('[{"external_id":"a"}]', "json").rows).toEqual([{ external_id: "a" }]);
    expect(parseImport('{"videos":[{"external_id":"b"}]}', "json").rows).toEqual([{ external_id: "b" }]);
    expect(() => parseImport('{"items":[]}', "json")).toThrow(/array of videos/);
  });
});
