import { describe, expect, it } from "vitest";
import { parseImport } from "./videos.import.ts";

describe("parseImport", () => {
  it("reads CSV cells into typed video fields and leaves empty cells out", () => {
    const csv =
      "\uFEFFexternal_id,url,title,tags,duration_seconds,view_count,comments,notes\n" +
      'a,/m/a.webm,"Title, with comma",x|y; z,12.5,300,"[{""author"":""A"",""text"":""B""}]",ignored\n' +
      "b,/m/b.webm,Plain,,,,,";
    const { rows, ignoredColumns } = parseImport(csv, "csv");
    expect(ignoredColumns).toEqual(["notes"]);
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

  it("accepts a JSON array or an object with videos", () => {
    expect(parseImport('[{"external_id":"a"}]', "json").rows).toEqual([{ external_id: "a" }]);
    expect(parseImport('{"videos":[{"external_id":"b"}]}', "json").rows).toEqual([{ external_id: "b" }]);
    expect(() => parseImport('{"items":[]}', "json")).toThrow(/array of videos/);
  });
});
