import { STUDY_SCHEMA_URL, type StudyDocument } from "@feedlab/schemas";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { studySchemaUrl, studyYaml } from "./export.ts";

/** Issue 52: a study document reads the same in YAML 1.1 readers (PyYAML) as in YAML 1.2 ones. */
describe("studyYaml", () => {
  const tricky = [
    "yes",
    "no",
    "on",
    "off",
    "y",
    "~",
    "null",
    "1:20",
    "010",
    "0x1F",
    "1_000",
    ".inf",
    "=",
    "<<",
  ];
  const doc: StudyDocument = {
    feedlab_study: 1,
    name: "on",
    description: "2026-01-01",
    arms: [],
    pool: [
      {
        external_id: "2026-01-01T00:00:00.000Z",
        url: "https://example.org/v.mp4",
        title: "off",
        published_at: "2026-01-01T00:00:00.000Z",
      },
    ],
    surveys: [
      {
        name: "yes",
        kind: "pre",
        active: true,
        questions: [
          {
            id: "no",
            text: "Agree?",
            type: "single",
            answers: tricky.map((t, i) => ({ id: t, text: t, value: i })),
          },
        ],
      },
    ],
  };

  it("quotes every string a YAML 1.1 reader would type otherwise, so both versions read the same document", () => {
    const text = studyYaml(doc, "https://feedlab.example/api/v1/schemas/study.json");
    expect(parse(text, { version: "1.1" })).toEqual(doc);
    expect(parse(text)).toEqual(doc);
    // Plain words stay plain: only what needs quotes has them.
    expect(text).toContain("text: Agree?");
    expect(text).toContain('title: "off"');
  });
});

describe("studySchemaUrl", () => {
  it("names the schema on the host and protocol the request reached, and stays relative without a host", () => {
    expect(studySchemaUrl({ host: "lab.example:8443", protocol: "https" })).toBe(
      `https://lab.example:8443${STUDY_SCHEMA_URL}`,
    );
    expect(studySchemaUrl({ host: "", protocol: "http" })).toBe(STUDY_SCHEMA_URL);
  });
});
