import { readFileSync } from "node:fs";
import type { TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { ExperimentPatch } from "./experiments.ts";
import { GroupCreate, GroupPatch } from "./groups.ts";
import { RecommenderCreate } from "./recommenders.ts";
import { LEFT_OUT_FIELDS, StudyDocument } from "./study.ts";
import { SurveyCreate } from "./surveys.ts";
import { UiTemplateCreate } from "./ui.ts";
import { VideoInput } from "./videos.ts";

type Node = { properties?: Record<string, Node>; items?: Node; anyOf?: Node[]; description?: string };
const props = (s: TSchema | Node | undefined): Record<string, Node> => {
  const n = s as Node | undefined;
  return n?.properties ?? n?.items?.properties ?? n?.anyOf?.find((b) => b.properties)?.properties ?? {};
};

describe("the study document's JSON Schema", () => {
  it("is committed as schemas/study.schema.json, equal to the one the server serves", () => {
    const file = new URL("../../study.schema.json", import.meta.url);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(JSON.parse(JSON.stringify(StudyDocument)));
  });

  it("holds every writable field of an experiment, arm, layout, recommender, survey and pool video, or lists it as left out with the reason", () => {
    const doc = props(StudyDocument);
    // Each resource: the console's writable fields, and the part of the document that holds them.
    const resources: [string, Record<string, Node>, Record<string, Node>][] = [
      ["experiment", props(ExperimentPatch), doc],
      ["group", { ...props(GroupCreate), ...props(GroupPatch) }, props(doc.arms)],
      ["layout", props(UiTemplateCreate), props(doc.layouts)],
      ["recommender", props(RecommenderCreate), props(doc.recommenders)],
      ["survey", props(SurveyCreate), props(doc.surveys)],
      ["video", props(VideoInput), props(doc.pool)],
      ["recommender.config", props(props(RecommenderCreate).config), props(props(doc.recommenders).config)],
    ];
    const missing: string[] = [];
    for (const [resource, writable, held] of resources)
      for (const field of Object.keys(writable))
        if (!(field in held) && !LEFT_OUT_FIELDS[`${resource}.${field}`])
          missing.push(`${resource}.${field}`);
    expect(missing).toEqual([]);
    // A field listed as left out really is: else the list would hide a field the document lost.
    for (const key of Object.keys(LEFT_OUT_FIELDS)) {
      const [resource, field] = key.split(".") as [string, string];
      const held = resources.find(([r]) => r === resource)?.[2] ?? {};
      expect(field in held, key).toBe(false);
    }
  });

  it("describes every field, for editors' hover help", () => {
    const undescribed: string[] = [];
    const walk = (node: Node | undefined, path: string) => {
      for (const [k, v] of Object.entries(props(node))) {
        const p = path ? `${path}.${k}` : k;
        const described =
          v.description ?? v.anyOf?.find((b) => b.description)?.description ?? v.items?.description;
        if (!described) undescribed.push(p);
        // Questions and tree nodes are the editors' own shapes, described where they are defined.
        if (!["questions", "tree", "completion", "exclusion_rules", "comments", "captions"].includes(k))
          walk(v, p);
      }
    };
    walk(StudyDocument as Node, "");
    expect(undescribed).toEqual([]);
  });
});
