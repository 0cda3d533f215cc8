import type { Readable } from "node:stream";
import {
  AdminSurvey,
  type AuditAction,
  ErrorBody,
  IdParams,
  IncludeSimulated,
  PendingQuery,
  PendingSurvey,
  ResponseCreate,
  SurveyCreate,
  SurveyResponse,
  SurveyUpdate,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { Type } from "@sinclair/typebox";
import { participantOf } from "../auth/auth.middleware.ts";
import { json } from "../db/present.ts";
import { route } from "../http/route.ts";
import type { StudyService } from "../study/study.service.ts";
import { dismissalsCsv, exportResponsesCsv, exportWideCsv } from "./responses.csv.ts";
import type { SurveyResponsesService } from "./responses.service.ts";
import type { SurveyRow, SurveysService } from "./surveys.service.ts";

export interface SurveyRoutesDeps {
  readonly db: Db;
  readonly surveys: SurveysService;
  readonly surveyResponses: SurveyResponsesService;
  readonly study: StudyService;
}

const DismissalBody = Type.Object(
  {
    session_id: Type.String({ format: "uuid" }),
    about_session_id: Type.Optional(Type.Union([Type.String({ format: "uuid" }), Type.Null()])),
  },
  { additionalProperties: false },
);

const error = (description: string) => ({ description, schema: ErrorBody });
const unknownSurvey = error("Unknown survey");

const CsvQuery = Type.Object({
  spreadsheet_safe: Type.Optional(
    Type.Boolean({
      description:
        "Prefix text a spreadsheet would run as a formula with an apostrophe (never a number such as -3); off by default: the file is exact",
    }),
  ),
  include_simulated: Type.Optional(IncludeSimulated),
});
/** What every survey CSV's description ends with. */
const LEAVES_OUT_SIMULATED = " Simulated participants (dry runs) are left out unless include_simulated=true.";
const SHAPE_RULES =
  "Shape rules (422 `invalid_survey`, `details` naming the question: `field`, `question_id`, `rule`): single and multi need at least one option; multi needs whole-number `minSelect` and `maxSelect` (0 = no upper bound, min <= max, min <= options); text takes no options. Question ids are unique in a survey, option ids in a question. At most 200 questions and 100 options per question. Attention checks (`attention_answer`, rules `attention_answer_*` at `questions[i].attention_answer`): single and multi only; single takes one option value, multi a non-empty list of distinct option values that fits its minSelect..maxSelect; every value is one of the question's own options' values.";

export function surveyRoutes({ db, surveys, surveyResponses, study }: SurveyRoutesDeps) {
  /** A survey's CSV download: an attachment named after the survey, never cached. */
  function surveyCsvRoute(spec: {
    path: string;
    audit: AuditAction;
    summary: string;
    description: string;
    file: string;
    body: (
      survey: SurveyRow,
      options: { safe: boolean; includeSimulated: boolean },
    ) => Readable | Promise<string>;
  }) {
    return route({
      method: "get",
      path: spec.path,
      audit: spec.audit,
      identifies: true,
      tag: "surveys",
      summary: spec.summary,
      description: spec.description + LEAVES_OUT_SIMULATED,
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: CsvQuery,
      responses: {
        200: { description: "CSV", schema: Type.String(), contentType: "text/csv" },
        404: unknownSurvey,
      },
      handler: async (ctx, { params, query }) => {
        const survey = await surveys.assertExists(params.id);
        ctx.type = "text/csv; charset=utf-8";
        ctx.set("Content-Disposition", `attachment; filename="survey-${survey.id}-${spec.file}.csv"`);
        ctx.set("Cache-Control", "no-store");
        ctx.body = await spec.body(survey, {
          safe: query.spreadsheet_safe === true,
          includeSimulated: query.include_simulated === true,
        });
      },
    });
  }

  return [
    route({
      method: "post",
      path: "/api/v1/admin/experiments/{id}/surveys",
      audit: "survey.create",
      tag: "surveys",
      summary: "Create a survey (kind pre, post or inter_session; a draft unless is_active)",
      description: SHAPE_RULES,
      access: "admin",
      role: "editor",
      params: IdParams,
      body: SurveyCreate,
      responses: {
        201: { description: "Created", schema: AdminSurvey },
        404: error("Unknown experiment"),
        409: error("active_survey_exists (with is_active: true)"),
        422: error("invalid_survey naming the question, or validation_failed"),
      },
      handler: async (ctx, { params, body }) => {
        ctx.status = 201;
        ctx.body = await surveys.create(params.id, body);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/surveys",
      tag: "surveys",
      summary: "List an experiment's surveys with their question and response counts",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: {
        200: { description: "Surveys, oldest first", schema: Type.Array(AdminSurvey) },
        404: error("Unknown experiment"),
      },
      handler: async (ctx, { params }) => {
        ctx.body = await surveys.list(params.id);
      },
    }),
    route({
      method: "get",
      path: "/api/v1/admin/surveys/{id}",
      tag: "surveys",
      summary: "Read a survey",
      access: "admin",
      role: "analyst",
      params: IdParams,
      responses: { 200: { description: "The survey", schema: AdminSurvey }, 404: unknownSurvey },
      handler: async (ctx, { params }) => {
        ctx.body = await surveys.get(params.id);
      },
    }),
    route({
      method: "put",
      path: "/api/v1/admin/surveys/{id}",
      audit: "survey.update",
      tag: "surveys",
      summary: "Replace a survey's name and questions (kind is fixed)",
      description: `${SHAPE_RULES} Submitted responses keep their own snapshot of the question texts and options.`,
      access: "admin",
      role: "editor",
      params: IdParams,
      body: SurveyUpdate,
      responses: {
        200: { description: "Updated", schema: AdminSurvey },
        404: unknownSurvey,
        422: error("invalid_survey, kind_immutable or validation_failed"),
      },
      handler: async (ctx, { params, body }) => {
        ctx.body = await surveys.update(params.id, body);
      },
    }),
    route({
      method: "delete",
      path: "/api/v1/admin/surveys/{id}",
      audit: "survey.delete",
      tag: "surveys",
      summary: "Delete a survey and its responses",
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: { 204: { description: "Deleted" }, 404: unknownSurvey },
      handler: async (ctx, { params }) => {
        await surveys.remove(params.id);
        ctx.status = 204;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/surveys/{id}/activate",
      audit: "survey.activate",
      tag: "surveys",
      summary: "Activate a survey (at most one active survey per experiment and kind)",
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: {
        200: { description: "The survey, active", schema: AdminSurvey },
        404: unknownSurvey,
        409: error("active_survey_exists: another survey of the same kind is active"),
      },
      handler: async (ctx, { params }) => {
        ctx.body = await surveys.activate(params.id);
      },
    }),
    route({
      method: "post",
      path: "/api/v1/admin/surveys/{id}/deactivate",
      audit: "survey.deactivate",
      tag: "surveys",
      summary: "Deactivate a survey",
      access: "admin",
      role: "editor",
      params: IdParams,
      responses: { 200: { description: "The survey, inactive", schema: AdminSurvey }, 404: unknownSurvey },
      handler: async (ctx, { params }) => {
        ctx.body = await surveys.deactivate(params.id);
      },
    }),
    surveyCsvRoute({
      path: "/api/v1/admin/surveys/{id}/responses/csv",
      audit: "export.survey_responses",
      summary: "Streamed CSV of the survey's responses",
      description:
        "RFC 4180 (CRLF records, fields quoted when they hold a comma, quote, CR or LF). Columns: response_id, user_login_id, about_session_id (empty for pre and post), created_at (ISO 8601), question_id, question_text (the response's snapshot), selections (JSON list of {id, text, value}), text_input (empty for single and multi). One record per response and answered question, responses in submission order. spreadsheet_safe=true puts an apostrophe before text a spreadsheet would run as a formula (=, +, -, @, tab, CR); without it the file is exactly the spec's.",
      file: "responses",
      body: (survey, options) => exportResponsesCsv(db, survey.id, options),
    }),
    surveyCsvRoute({
      path: "/api/v1/admin/surveys/{id}/responses/wide.csv",
      audit: "export.survey_responses_wide",
      summary: "Streamed wide CSV: one row per response, with the participant's arm",
      description:
        "Columns: response_id, user_id, user_login_id, group_id, group_name, about_session_id, created_at, then one column per question of the survey, named by its id: single, the chosen option's value; multi, the values joined by `|`; text, the text; empty when unanswered. Responses in submission order. spreadsheet_safe=true puts an apostrophe before text a spreadsheet would run as a formula.",
      file: "responses-wide",
      body: (survey, options) =>
        exportWideCsv(
          db,
          { id: survey.id, questionIds: json<{ id: string }[]>(survey.questions, []).map((q) => q.id) },
          options,
        ),
    }),
    surveyCsvRoute({
      path: "/api/v1/admin/surveys/{id}/dismissals.csv",
      audit: "export.survey_dismissals",
      summary: "CSV of the times participants closed the survey without answering",
      description:
        "Columns: user_id, user_login_id, group_id, group_name, session_id, about_session_id, dismissed_at; in time order. With the responses, tells a dismissed survey from one never shown. spreadsheet_safe=true as for the other CSVs.",
      file: "dismissals",
      body: (survey, options) => dismissalsCsv(db, survey.id, options),
    }),
    route({
      method: "get",
      path: "/api/v1/surveys/pending",
      tag: "surveys",
      summary: "The survey due for the participant now, or null",
      description:
        "Dispatcher, first match wins: (1) an active pre survey not yet answered, forced; (2) the study has ended for the participant (the experiment is completed, or the experiment's completion conditions are reached) and an active post survey is not yet answered, not forced; (3) unless the study has ended for the participant, an active inter_session survey and the participant's most recent session other than session_id has no response of it about that session, not forced, with about_session_id; (4) null. Questions never carry `attention_answer`: an attention check's expected answer stays on the server. Answers 403 consent_required before consent, experiment_paused while paused. session_id must be the participant's own session (unknown 404, another participant's 403).",
      access: "participant",
      query: PendingQuery,
      responses: {
        200: { description: "The pending survey, or null", schema: PendingSurvey },
        403: error("Another participant's session"),
        404: error("Unknown session"),
      },
      handler: async (ctx, { query }) => {
        const pending = await surveyResponses.pending(
          await study.admit(participantOf(ctx), "surveys"),
          query.session_id,
        );
        // Koa turns a null body into 204; the contract answers 200 with a JSON null.
        ctx.type = "application/json";
        ctx.body = pending === null ? "null" : pending;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/surveys/{id}/responses",
      tag: "surveys",
      summary: "Submit a response to a survey (once; never editable afterwards)",
      description:
        "Each answer: single takes exactly one option; multi between minSelect and maxSelect (0 = no upper bound), no option twice; text takes no selections and a non-blank textInput (a textInput on single or multi is ignored). Every required question is answered once; an optional one (`required: false`) may be left out or sent empty, and is then not stored. The stored Answer snapshots questionText and each selection's {id, text, value}, as the participant read them (in their language). inter_session: about_session_id is required and must be one of the participant's own sessions (else 422 invalid_answers); pre and post store about_session_id null whatever is sent. duration_ms (optional, 0 to 86,400,000): how long the form was open, measured by the participant page; stored with the response. In a study that balances on a pre survey's answer (api.md, Assignment), the pre survey's response also assigns the participant their arm, in the same transaction: 403 experiment_full, storing nothing, when every arm filled up meanwhile.",
      access: "participant",
      params: IdParams,
      body: ResponseCreate,
      responses: {
        201: { description: "Stored", schema: SurveyResponse },
        403: error(
          "session_id is another participant's session, or experiment_full: the pre survey's answer would assign an arm and none is open",
        ),
        404: error("Unknown session, or a survey that is unknown, inactive or of another experiment"),
        409: error("duplicate_response"),
        422: error("invalid_answers naming the answer and rule, or validation_failed"),
      },
      handler: async (ctx, { params, body }) => {
        const p = await study.admit(participantOf(ctx), "surveys");
        ctx.body = await surveyResponses.submit(p, params.id, body);
        ctx.status = 201;
      },
    }),
    route({
      method: "post",
      path: "/api/v1/surveys/{id}/dismissals",
      tag: "surveys",
      summary: "Record that the participant closed a survey without answering",
      description:
        "So an analysis can tell a dismissed survey from one never shown: who, when, which survey, in which session (and, for inter_session, about which session). A forced (pre) survey cannot be dismissed: 409 survey_forced. Recording the same dismissal again in the same session is kept once.",
      access: "participant",
      params: IdParams,
      body: DismissalBody,
      responses: {
        204: { description: "Recorded" },
        403: error("session_id is another participant's session, consent_required or experiment_paused"),
        404: error("Unknown session, or a survey that is unknown, inactive or of another experiment"),
        409: error("survey_forced: a pre survey cannot be dismissed"),
      },
      handler: async (ctx, { params, body }) => {
        const p = await study.admit(participantOf(ctx), "surveys");
        await surveyResponses.dismiss(p, params.id, body.session_id, body.about_session_id ?? null);
        ctx.status = 204;
      },
    }),
  ];
}
