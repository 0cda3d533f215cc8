import {
  ErrorBody,
  IdParams,
  STUDY_SCHEMA_URL,
  StudyApplied,
  StudyDocument,
  StudyPlan,
  StudyPlanBody,
} from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { adminOf } from "../auth/auth.middleware.ts";
import { route } from "../http/route.ts";
import { studySchemaUrl, studyYaml } from "./export.ts";
import type { StudyFilesService } from "./study-files.service.ts";

/** The largest study document accepted (a pool of many thousand videos fits). */
const DEFINITION_LIMIT_BYTES = 50 * 1024 * 1024;

const DefinitionQuery = Type.Object({
  format: Type.Optional(
    Type.Unsafe<"yaml" | "json">({
      type: "string",
      enum: ["yaml", "json"],
      default: "yaml",
      description: "yaml (default) or json",
    }),
  ),
});

/** A file name from a study's name: `my-study.study.yaml`. */
const fileName = (name: string, ext: string) =>
  `${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "study"
  }.study.${ext}`;

const problems = {
  description:
    "invalid_definition: the document breaks the schema, repeats a name, or holds what the console would find invalid (a header reading a variable not named FEEDLAB_SECRET_..., a stored header kept for a URL of another origin, a recommender URL at a blocked_address); details: [{path, line?, column?, message}] (line and column for text)",
  schema: ErrorBody,
};

/** Study documents and their schema (api.md "Study definitions and packages"; docs/study-files.md). */
export function studyFileRoutes({ studyFiles }: { studyFiles: StudyFilesService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/definition",
      tag: "study files",
      summary: "Export an experiment as a study document (YAML or JSON)",
      description:
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference as a document writes it
        "The whole study by names, never ids: its fields, arms (algorithm and UI), the layouts and external recommenders the arms use (header values as `${FEEDLAB_SECRET_<KEY>_<HEADER>}` references, never the secrets), the pool with every metadata field, and the surveys. YAML comes as a download (Content-Disposition: attachment).",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: DefinitionQuery,
      responses: {
        200: { description: "The study document", schema: StudyDocument, contentType: "application/yaml" },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        const doc = await studyFiles.export(params.id);
        if (query.format === "json") {
          ctx.body = doc;
          return;
        }
        ctx.attachment(fileName(doc.name, "yaml"));
        ctx.body = studyYaml(doc, studySchemaUrl(ctx));
        // After the body: a string body would otherwise leave the type Koa guessed.
        ctx.type = "application/yaml; charset=utf-8";
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/study-definitions/plan",
      tag: "study files",
      summary: "What applying a study document would do, resource by resource",
      description:
        "Works the document out against the experiment (`experiment_id`) or a new one, exactly as applying would, and changes nothing. Each change: create, update (with the fields), unchanged, delete (an arm or survey of the experiment the document no longer names), or refused with the console's reason and code. A copy made because another experiment uses a layout, recommender or video says so in `reason`.",
      access: "admin",
      role: "researcher",
      roleOnBodyExperiment: "editor",
      body: StudyPlanBody,
      bodyLimitBytes: DEFINITION_LIMIT_BYTES,
      responses: {
        200: { description: "The plan", schema: StudyPlan },
        404: { description: "Unknown experiment_id", schema: ErrorBody },
        422: problems,
      },
      handler: async (ctx, { body }) => {
        ctx.body = await studyFiles.plan(body);
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/study-definitions/apply",
      tag: "study files",
      audit: "study.apply",
      summary: "Apply a study document, all or nothing",
      description:
        "Applies the plan in one transaction, by names: into `experiment_id`, or a new experiment. Applying the same document twice changes nothing. A change the console would refuse (group_has_participants, template_in_use, active_survey_exists, survey_has_responses...) answers 409 with the refusals as `details` (its code is the first refusal's), and nothing is applied. Layouts, recommenders and videos another experiment uses are never changed: a copy is made, its name suffixed.",
      access: "admin",
      role: "researcher",
      roleOnBodyExperiment: "editor",
      body: StudyPlanBody,
      bodyLimitBytes: DEFINITION_LIMIT_BYTES,
      responses: {
        200: { description: "Applied", schema: StudyApplied },
        404: { description: "Unknown experiment_id", schema: ErrorBody },
        409: { description: "Refused changes (details), nothing applied", schema: ErrorBody },
        422: problems,
      },
      handler: async (ctx, { body }) => {
        ctx.body = await studyFiles.apply(body, adminOf(ctx));
      },
    }),
    route({
      method: "get",
      path: STUDY_SCHEMA_URL,
      tag: "study files",
      summary: "JSON Schema of study documents",
      description:
        "For editors: validation and completion of study.yaml files (the YAML language server reads the `# yaml-language-server: $schema=` line exports begin with). Also committed as schemas/study.schema.json.",
      access: "public",
      responses: {
        200: {
          description: "The schema",
          schema: Type.Object({}, { additionalProperties: true }),
          contentType: "application/schema+json",
        },
      },
      handler: (ctx) => {
        ctx.set("Cache-Control", "public, max-age=3600");
        ctx.type = "application/schema+json";
        ctx.body = JSON.stringify(StudyDocument);
      },
    }),
  ];
}
