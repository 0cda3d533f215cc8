// The tables of a replication package (docs/packages.md): arms, participants, events and survey
// responses, each read with the code of the export it copies.
import {
  EVENT_TYPES,
  type Group,
  type GroupStats,
  QUALITY_MEASURES,
  RECRUITING_PARAMETERS,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { EXPORT_COLUMNS, parquetColumns, uiName } from "../events/event-columns.ts";
import type { EventStoreReader } from "../events/event-store.read.ts";
import { participantRecords } from "../participants/participants.export.ts";
import { responsePages, WIDE_CSV_COLUMNS, wideCells } from "../surveys/responses.csv.ts";
import type { ResearcherSurvey } from "../surveys/surveys.service.ts";
import type { Pseudonymizer } from "./pseudonyms.ts";
import {
  type Cell,
  DATETIME_FORMAT,
  FIELD_TYPE_OF,
  type Field,
  type FieldType,
  type Table,
} from "./table.ts";

const uuid = (name: string, description: string): Field => ({
  name,
  type: "string",
  format: "uuid",
  description,
});
const at = (name: string, description: string): Field => ({
  name,
  type: "datetime",
  format: DATETIME_FORMAT,
  description,
});
const field = (name: string, type: FieldType, description: string): Field => ({ name, type, description });

const ARM = "references arms.group_id";
const PARTICIPANT = "references participants.user_id";

/** What each column of the events export holds (api.md "Data, evaluation and training"). */
const EVENT_COLUMN_TEXT: Readonly<Record<(typeof EXPORT_COLUMNS)[number], string>> = {
  event_id: "The event's id, made by the participant's browser; each event is stored once",
  session_id: "The participant's session (a visit), made by their browser",
  user_id: `The participant (${PARTICIPANT})`,
  login_id: "The participant's login id (a pseudonym in a pseudonymized package)",
  group_id: `The participant's arm (${ARM})`,
  event_type: `One of the ${EVENT_TYPES.length} event types (codebook.md lists each with its payload)`,
  video_id: "The video's external id (the pool's external_id); empty for events about no video",
  timestamp: "When the event happened, by the participant's clock (UTC)",
  received_at: "When the server received it (UTC)",
  watch_ratio: "Share of the video watched (playback events)",
  watch_duration: "Seconds of the video watched (playback events)",
  position_in_feed: "0-based position of the card in its list (IMPRESSION, FEED_CLICK)",
  algorithm_feed: "Recommender key serving the arm's feed page when the event arrived",
  algorithm_watch: "Recommender key serving the arm's watch page (related videos) when the event arrived",
  payload: "The event type's fields, as JSON (codebook.md lists them per type)",
  experiment_id: "The experiment",
  group_name: "The arm's name at export time",
  seq: "The event's number within its session, from 1 (gaps are lost events); empty for other clients",
  ui_feed: "The feed layout in force: a preset key, none, or <layout id>@<version>",
  ui_watch: "The watch layout in force: a preset key, none, or <layout id>@<version>",
  timestamp_flag:
    "future, before_study or stale when the client clock cannot be right; empty otherwise (docs/events.md)",
  ui_feed_name: "The feed layout's name at export time (or the preset key)",
  ui_watch_name: "The watch layout's name at export time (or the preset key)",
};

/** Every stored event of the experiment's real participants, in time order (the events export's). */
export function eventsTable(
  eventStore: EventStoreReader,
  experimentId: string,
  scrub: Pseudonymizer | null,
): Table {
  const kinds = new Map(
    parquetColumns({ groupNames: new Map(), createdMs: 0 }).map(([name, kind]) => [name, kind]),
  );
  const fields = EXPORT_COLUMNS.map((name): Field => {
    const kind = kinds.get(name) ?? "string";
    const base: Field = { name, type: FIELD_TYPE_OF[kind], kind, description: EVENT_COLUMN_TEXT[name] };
    if (["event_id", "session_id", "user_id", "group_id", "experiment_id"].includes(name))
      return { ...base, format: "uuid" };
    if (name === "event_type") return { ...base, constraints: { enum: EVENT_TYPES } };
    if (name === "timestamp_flag")
      return { ...base, constraints: { enum: ["future", "before_study", "stale"] } };
    return base.type === "datetime" ? { ...base, format: DATETIME_FORMAT } : base;
  });
  return {
    name: "events",
    title: "Events",
    description:
      "Every stored event of the study's participants (simulated ones left out), in client time order, ties broken by session and seq: the events export (api.md) with its columns.",
    fields,
    primaryKey: ["event_id"],
    foreignKeys: [
      { fields: ["user_id"], reference: { resource: "participants", fields: ["user_id"] } },
      { fields: ["group_id"], reference: { resource: "arms", fields: ["group_id"] } },
    ],
    async *rows() {
      for await (const page of eventStore.pages({ experimentId, includeSimulated: false }))
        yield page.map((e) => {
          const event = scrub
            ? {
                ...e,
                login_id: scrub.pseudonym(e.user_id, e.login_id),
                payload: scrub.payload(e.user_id, e.payload),
              }
            : e;
          return EXPORT_COLUMNS.map((c) => event[c] as Cell);
        });
    },
  };
}

/** The participants CSV's columns (api.md), typed; recruiting parameters are text. */
const PARTICIPANT_FIELDS: Readonly<Record<string, Field>> = Object.fromEntries(
  [
    uuid("user_id", "The participant"),
    field("login_id", "string", "The login id they joined with (a pseudonym in a pseudonymized package)"),
    uuid("group_id", `The arm they were assigned to (${ARM})`),
    field("group_name", "string", "The arm's name"),
    {
      ...field(
        "assignment_method",
        "string",
        "How they were assigned (docs/assignment.md); manual: by the researcher",
      ),
      constraints: { enum: ["balanced", "blocked", "minimisation", "adaptive", "manual"] },
    },
    field(
      "assignment_probability",
      "number",
      "The chance the method gave them their arm when they were assigned (weight by its inverse); empty for manual",
    ),
    {
      ...field("status", "string", "finished, declined (the consent), started (any event) or joined"),
      constraints: { enum: ["finished", "declined", "started", "joined"] },
    },
    at("joined_at", "When they first joined"),
    at("consented_at", "When they gave consent; empty without"),
    at("finished_at", "When they finished the study; empty until then"),
    field("sessions", "integer", "Sessions (visits) registered"),
    field("events", "integer", "Events stored"),
    at("last_seen_at", "Their last event's arrival"),
    field("language", "string", "Their language (BCP 47): the one the study's texts were shown in"),
    field("simulated", "boolean", "A dry run's simulated participant (never in a package: always false)"),
    field("excluded", "boolean", "A researcher excluded them from analysis (left out of stats.json)"),
    field("excluded_reason", "string", "Why, as the researcher wrote it"),
    field("active_seconds", "number", QUALITY_MEASURES.active_seconds),
    field("visible_watch_seconds", "number", QUALITY_MEASURES.visible_watch_seconds),
    field("watch_seconds", "number", QUALITY_MEASURES.watch_seconds),
    field("hidden_share", "number", QUALITY_MEASURES.hidden_share),
    field("pointer_events", "integer", QUALITY_MEASURES.pointer_events),
    field("viewport_width", "integer", "The widest viewport of their sessions, in CSS pixels"),
    field("seconds_per_question", "number", QUALITY_MEASURES.seconds_per_question),
    field("straight_lined", "boolean", QUALITY_MEASURES.straight_lined),
    field("attention_passed", "integer", QUALITY_MEASURES.attention_passed),
    field("attention_failed", "integer", QUALITY_MEASURES.attention_failed),
    field("duplicate_recruiting_id", "boolean", QUALITY_MEASURES.duplicate_recruiting_id),
    field("quality_flags", "string", "The quality flags raised, joined by | (docs/quality.md)"),
    field("excluded_by_rules", "boolean", "Any of the experiment's pre-registered exclusion rules holds"),
  ].map((f) => [f.name, f]),
);

/** One row per real participant (the participants CSV); recruiting ids left out when pseudonymized. */
export async function participantsTable(
  db: Db,
  experimentId: string,
  scrub: Pseudonymizer | null,
): Promise<Table> {
  const { columns } = await participantRecords(db, experimentId);
  const kept = columns.map((c, i) => [c, i] as const).filter(([c]) => !(scrub?.dropsColumn(c) ?? false));
  const at = (name: string) => columns.indexOf(name);
  const [user, login, reason] = [at("user_id"), at("login_id"), at("excluded_reason")];
  return {
    name: "participants",
    title: "Participants",
    description:
      "One row per participant (simulated ones left out), in join order: the participants CSV (api.md), with their quality measures.",
    fields: kept.map(
      ([c]) =>
        PARTICIPANT_FIELDS[c] ??
        field(
          c,
          "string",
          (RECRUITING_PARAMETERS as readonly string[]).includes(c)
            ? `The ${c} recruiting parameter of their join link (left out when pseudonymized)`
            : `The ${c} parameter of their join link`,
        ),
    ),
    primaryKey: ["user_id"],
    foreignKeys: [{ fields: ["group_id"], reference: { resource: "arms", fields: ["group_id"] } }],
    async *rows() {
      for await (const page of (await participantRecords(db, experimentId)).pages)
        yield page.map((cells) => {
          if (scrub) {
            const userId = String(cells[user]);
            cells[login] = scrub.pseudonym(userId, String(cells[login]));
            cells[reason] = scrub.text(userId, (cells[reason] as string | null) ?? null);
          }
          return kept.map(([, i]) => cells[i] ?? null);
        });
    },
  };
}

/** What the arms table says of each arm: its configuration, and stats.json's participant counts. */
export function armsTable(
  groups: readonly Group[],
  stats: readonly GroupStats[],
  templateNames: ReadonlyMap<string, string>,
): Table {
  const counted = new Map(stats.map((s) => [s.group_id, s]));
  return {
    name: "arms",
    title: "Arms",
    description: "The experiment's arms (groups) in creation order, as configured when the package was made.",
    fields: [
      uuid("group_id", "The arm"),
      field("name", "string", "The arm's name"),
      field("weight", "number", "Its share of new participants, relative to the other arms' weights"),
      field("algorithm_feed", "string", "Recommender key of the feed page"),
      field("algorithm_watch", "string", "Recommender key of the watch page's related videos"),
      field("ui_feed", "string", "Feed layout: a preset key, none, or a layout id"),
      field("ui_watch", "string", "Watch layout: a preset key, none, or a layout id"),
      field("ui_feed_name", "string", "The feed layout's name (or the preset key)"),
      field("ui_watch_name", "string", "The watch layout's name (or the preset key)"),
      field(
        "recommender_params",
        "object",
        "Parameters the arm gives its recommenders, by recommender key (JSON)",
      ),
      field("participants", "integer", "Participants analysed (stats.json): not excluded, not simulated"),
      field("excluded_participants", "integer", "Participants a researcher excluded from analysis"),
    ],
    primaryKey: ["group_id"],
    async *rows() {
      yield groups.map((g) => [
        g.id,
        g.name,
        g.weight,
        g.algorithm_config.feed,
        g.algorithm_config.watch,
        g.ui_config.feed,
        g.ui_config.watch,
        uiName(g.ui_config.feed, templateNames),
        uiName(g.ui_config.watch, templateNames),
        g.recommender_params as Record<string, unknown>,
        counted.get(g.id)?.participants ?? 0,
        counted.get(g.id)?.excluded_participants ?? 0,
      ]);
    },
  };
}

/** A question's column in survey_responses: the survey it belongs to and its name in the table. */
interface QuestionColumn {
  readonly survey: ResearcherSurvey;
  readonly question: ResearcherSurvey["questions"][number];
  readonly column: string;
}

const FIXED_RESPONSE_COLUMNS = [
  "response_id",
  "survey_id",
  "survey_name",
  "survey_kind",
  ...WIDE_CSV_COLUMNS.slice(1),
];

/**
 * Each question's column: its id, or `<survey name>.<id>` when another survey (or a fixed column)
 * has a column of that name.
 */
function questionColumns(surveys: readonly ResearcherSurvey[]): QuestionColumn[] {
  const all = surveys.flatMap((survey) => survey.questions.map((question) => ({ survey, question })));
  const count = new Map<string, number>();
  for (const { question } of all) count.set(question.id, (count.get(question.id) ?? 0) + 1);
  const taken = new Set(FIXED_RESPONSE_COLUMNS);
  return all.map(({ survey, question }) => {
    const plain = (count.get(question.id) ?? 0) === 1 && !taken.has(question.id);
    return { survey, question, column: plain ? question.id : `${survey.name}.${question.id}` };
  });
}

/** Every response to the experiment's surveys, one row each (the wide CSV of every survey, stacked). */
export function responsesTable(
  db: Db,
  surveys: readonly ResearcherSurvey[],
  scrub: Pseudonymizer | null,
): Table {
  const questions = questionColumns(surveys);
  return {
    name: "survey_responses",
    title: "Survey responses",
    description:
      "One row per survey response (simulated participants' left out), survey by survey in submission order: the wide CSV (api.md) of each survey, with one column per question of every survey; a question of another survey is empty.",
    fields: [
      uuid("response_id", "The response"),
      uuid("survey_id", "The survey answered"),
      field("survey_name", "string", "The survey's name"),
      {
        ...field("survey_kind", "string", "pre, post or inter_session"),
        constraints: { enum: ["pre", "post", "inter_session"] },
      },
      uuid("user_id", `The participant (${PARTICIPANT})`),
      field("user_login_id", "string", "Their login id (a pseudonym in a pseudonymized package)"),
      uuid("group_id", `Their arm (${ARM})`),
      field("group_name", "string", "The arm's name"),
      uuid("about_session_id", "inter_session: the session the response is about; empty for pre and post"),
      at("created_at", "When the response was submitted"),
      field(
        "language",
        "string",
        "The language the survey was shown in (BCP 47); the values are the same in every language",
      ),
      ...questions.map(({ survey, question, column }) =>
        field(
          column,
          question.type === "single" ? "number" : "string",
          `${survey.name}: ${question.text} (${question.type}${
            question.type === "single"
              ? ": the chosen option's value"
              : question.type === "multi"
                ? ": the chosen values joined by |"
                : ": the text"
          })`,
        ),
      ),
    ],
    primaryKey: ["response_id"],
    foreignKeys: [{ fields: ["user_id"], reference: { resource: "participants", fields: ["user_id"] } }],
    async *rows() {
      for (const survey of surveys) {
        for await (const page of responsePages(db, survey.id))
          yield page.map((r) => {
            const cellOf = wideCells(r);
            return [
              r.id,
              survey.id,
              survey.name,
              survey.kind,
              r.user_id,
              scrub ? scrub.pseudonym(r.user_id, r.login_id ?? "") : r.login_id,
              r.group_id,
              r.group_name,
              r.about_session_id,
              r.created_at,
              r.language,
              ...questions.map(({ survey: of, question }) => {
                if (of.id !== survey.id) return null;
                const cell = cellOf(question.id);
                if (cell === null || cell === "") return null;
                if (question.type === "single") return Number(cell);
                return question.type === "text" && scrub ? scrub.text(r.user_id, cell) : cell;
              }),
            ];
          });
      }
    },
  };
}
