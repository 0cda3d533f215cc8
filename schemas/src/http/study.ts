import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { Assignment } from "./assignment.ts";
import { Nullable } from "./common.ts";
import { Completion } from "./experiments.ts";
import { GroupCreate } from "./groups.ts";
import { Languages, LanguageTag } from "./languages.ts";
import { LocalizedTextOf } from "./localized-text.ts";
import { IntegerIn } from "./numbers.ts";
import { ProlificLink } from "./prolific.ts";
import { ExclusionRules } from "./quality.ts";
import { ExternalHttpConfigInput, RECOMMENDER_KEY_PATTERN, RecommenderCreate } from "./recommenders.ts";
import { Reminders, Schedule } from "./schedule.ts";
import { Questions, SurveyKind } from "./surveys.ts";
import { TemplatePage, TemplateSource, TemplateTree, TemplateType } from "./ui.ts";
import { Caption, VideoInput } from "./videos.ts";

/**
 * The study document (api.md "Study definitions and packages"; docs/study-files.md): one YAML or JSON
 * file that holds a whole study, its resources named, never identified by ids.
 */

/** A schema with a description (for editors' completion and hover help). */
const described = <T extends TSchema>(schema: T, description: string): T => ({ ...schema, description });

/** The version of the document format this server writes and reads. */
export const STUDY_FORMAT = 1;

/**
 * Writable fields of the resources a document describes that it does not hold, with the reason.
 * The field-coverage test fails when a writable field is neither in the document nor here.
 */
export const LEFT_OUT_FIELDS: Readonly<Record<string, string>> = {
  "experiment.status":
    "Starting, pausing and ending a study are done in the console: a document describes the design, and applying it never starts or stops participants' access.",
  "recommender.kind":
    "Always external_http: built-in recommenders are part of every server and are named by key only.",
  "survey.is_active": "Written as `active`.",
  "group.algorithm_config": "Written as `algorithm`.",
  "group.ui_config": "Written as `ui` (a preset key, `none`, or a layout's name).",
};

const Name = Type.String({ minLength: 1, maxLength: 255, pattern: "^[^\\u0000]*$" });

const Arm = Type.Object(
  {
    name: described(Name, "The arm's name, unique in the document: the arm is found by it when applying."),
    weight: described(
      GroupCreate.properties.weight,
      "Relative share of new participants (0.001 to 1000000; default 1).",
    ),
    algorithm: Type.Object(
      {
        feed: Type.String({
          minLength: 1,
          maxLength: 100,
          description: "The recommender key serving the feed page: a built-in, or one under `recommenders`.",
        }),
        watch: Type.String({
          minLength: 1,
          maxLength: 100,
          description: "The recommender key serving the watch page's related list.",
        }),
      },
      { additionalProperties: false, description: "Which recommender serves each page." },
    ),
    recommender_params: Type.Optional(
      described(
        GroupCreate.properties.recommender_params,
        "Per-recommender parameters by recommender key; each is a placeholder of that recommender's body template.",
      ),
    ),
    ui: Type.Object(
      {
        feed: Type.String({
          minLength: 1,
          maxLength: 255,
          description:
            "The feed page's layout: a UI preset key (such as grid-desktop), or a name under `layouts`.",
        }),
        watch: Type.String({
          minLength: 1,
          maxLength: 255,
          description: "The watch page's layout: a UI preset key, or a name under `layouts`.",
        }),
      },
      { additionalProperties: false, description: "Which layout each page uses." },
    ),
    cap: Type.Optional(
      described(GroupCreate.properties.cap, "The most participants the arm takes (absent: no cap)."),
    ),
    paused: Type.Optional(
      described(GroupCreate.properties.paused, "The arm takes no newcomer (absent: false)."),
    ),
  },
  { additionalProperties: false, description: "An arm (user group): what its participants are shown." },
);

const Layout = Type.Object(
  {
    name: described(Name, "The layout's name; arms name it in `ui`. Unique in the document."),
    page: TemplatePage,
    template_type: TemplateType,
    source: Type.Optional(TemplateSource),
    tree: Type.Optional(TemplateTree),
  },
  {
    additionalProperties: false,
    description:
      "A page layout (UI template). Layouts are shared by experiments: applying never changes one another experiment uses; it makes a copy, its name suffixed.",
  },
);

const { headers: _headers, ...configProperties } = ExternalHttpConfigInput.properties;
const RecommenderConfig = Type.Object(
  {
    ...configProperties,
    headers: Type.Optional(
      Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }), {
        description:
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the reference as a document writes it
          'Headers sent on every call. A study document never holds the server\'s values: each is a reference `${FEEDLAB_SECRET_<KEY>_<HEADER>}` to an environment variable of the applying server. Only names starting with FEEDLAB_SECRET_ are read; an unset one (or "********") keeps the value the server already stores for that key only while the URL keeps its origin (scheme, host, port).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: "The external service's configuration (docs/recommenders.md).",
  },
);

const Recommender = Type.Object(
  {
    key: Type.String({
      pattern: RECOMMENDER_KEY_PATTERN,
      description: "The recommender's key, as arms name it. Unique in the document.",
    }),
    label: RecommenderCreate.properties.label,
    description: Type.Optional(RecommenderCreate.properties.description),
    category: Type.Optional(RecommenderCreate.properties.category),
    supports_feed: Type.Optional(Type.Boolean({ description: "Can serve the feed page; default true." })),
    supports_watch: Type.Optional(Type.Boolean({ description: "Can serve the watch page; default false." })),
    config: RecommenderConfig,
  },
  {
    additionalProperties: false,
    description:
      "An external recommender an arm uses. Recommenders are shared: applying never changes one another experiment uses; it registers a copy, its key suffixed.",
  },
);

const VIDEO_FIELD_HELP: Record<string, string> = {
  external_id:
    "The video's identifier in your catalog; events name videos by it. Unique in the document; applying finds the video by it.",
  url: "The media: an http(s) URL, a provider's page (YouTube, Vimeo), a path on the server, or an uploaded file by its content, media:<sha256>/<file name> (feedlab study apply --media DIR uploads it where the server lacks it).",
  title: "Shown on the card and the watch page.",
  channel_name: "Shown under the title.",
  category: "A label recommenders may use.",
  description: "Shown on the watch page.",
  tags: "Labels recommenders may use.",
  duration_seconds: "Length, shown on the card.",
  view_count: "Shown on the card, and used by the popular recommender.",
  thumbnail_url: "The card's image (a URL, or media:<sha256>/<file name>).",
  published_at: "Shown as the upload date.",
  comments: "Comments shown under the video.",
  captions: "Caption tracks (WebVTT) by language; each url as the video's.",
};
/** A file uploaded to a server, named by its content: `media:<sha256>/<file name>`. */
export const MEDIA_REF = /^media:([0-9a-f]{64})\/([^/]+)$/;

/** A video's URL in a document: as the API takes it, or an upload by its content. */
const PoolUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: "^(https?://[^\\s]+|/[^\\s]*|media:[0-9a-f]{64}/[^/]+)$",
});
const poolFields = {
  ...VideoInput.properties,
  url: PoolUrl,
  thumbnail_url: Type.Optional(Nullable(PoolUrl)),
  captions: Type.Optional(
    Type.Array(Type.Object({ ...Caption.properties, url: PoolUrl }, { additionalProperties: false }), {
      maxItems: 50,
    }),
  ),
};
const PoolVideo = Type.Object(
  Object.fromEntries(
    Object.entries(poolFields).map(([k, v]) => [k, described(v, VIDEO_FIELD_HELP[k] ?? k)]),
  ) as typeof poolFields,
  {
    additionalProperties: false,
    description:
      "A video of the pool, with every metadata field. Videos are shared: applying never changes one another experiment's pool holds; it adds a copy, its external_id suffixed.",
  },
);

const StudySurvey = Type.Object(
  {
    name: LocalizedTextOf(
      Name,
      "The survey's name, unique in the document: the survey is found by it (by its default language's text when it has several).",
    ),
    kind: SurveyKind,
    active: Type.Boolean({
      description: "Whether participants are asked it (one active survey of each kind).",
    }),
    questions: described(Questions, "The questions, as the console's survey editor writes them."),
  },
  { additionalProperties: false, description: "A survey of the study." },
);

export const StudyDocument = Type.Object(
  {
    feedlab_study: Type.Literal(STUDY_FORMAT, { description: "The document format's version: 1." }),
    name: described(Name, "The study's name."),
    description: Type.Optional(
      Type.String({ maxLength: 10000, description: "What the study is for (researchers only)." }),
    ),
    consent_text: Type.Optional(
      Nullable(
        LocalizedTextOf(
          Type.String({ maxLength: 50_000 }),
          "Markdown shown to participants before anything else; null for no consent step.",
        ),
      ),
    ),
    completion: Type.Optional(
      Nullable(described(Completion, "When a participant is finished, and where they go then.")),
    ),
    exclusion_rules: Type.Optional(ExclusionRules),
    min_response_ms: Type.Optional(
      Nullable(
        IntegerIn(0, 10_000, {
          description:
            "Every feed and related answer of every arm takes at least this long (latency parity).",
        }),
      ),
    ),
    languages: Type.Optional(Languages),
    default_language: Type.Optional(
      described(LanguageTag, "The language of participants whose link and browser ask for none listed."),
    ),
    language_switch: Type.Optional(
      Type.Boolean({ description: "Participants may change their language during the study." }),
    ),
    assignment: Type.Optional(
      described(
        Assignment,
        "How newcomers are assigned to the arms (docs/assignment.md); absent: balanced by weight, counting everyone who joined.",
      ),
    ),
    prolific: Type.Optional(
      described(
        ProlificLink,
        "The Prolific study participants come from, and whether a finisher the rules keep is approved at once (docs/prolific.md); absent: not linked.",
      ),
    ),
    schedule: Type.Optional(
      described(Schedule, "When each later session may begin (docs/longitudinal.md); absent: no schedule."),
    ),
    reminders: Type.Optional(
      described(Reminders, "Reminders by e-mail (docs/longitudinal.md); absent: none."),
    ),
    arms: Type.Array(Arm, {
      maxItems: 100,
      description: "The arms; participants are assigned by `assignment`.",
    }),
    layouts: Type.Optional(Type.Array(Layout, { maxItems: 200, description: "Layouts the arms name." })),
    recommenders: Type.Optional(
      Type.Array(Recommender, { maxItems: 100, description: "External recommenders the arms use." }),
    ),
    pool: Type.Optional(
      Type.Array(PoolVideo, {
        maxItems: 100_000,
        description: "The videos recommenders choose from, in order.",
      }),
    ),
    surveys: Type.Optional(Type.Array(StudySurvey, { maxItems: 100, description: "The study's surveys." })),
  },
  {
    additionalProperties: false,
    $id: "https://feedlab.dev/schemas/study.json",
    title: "Feedlab study document",
    description: `A whole Feedlab study, as \`feedlab study export\` writes it and \`feedlab study apply\` reads it (docs/study-files.md). Fields left out, and why: ${Object.entries(
      LEFT_OUT_FIELDS,
    )
      .map(([f, why]) => `${f}: ${why}`)
      .join(" ")}`,
  },
);
export type StudyDocument = Static<typeof StudyDocument>;

const Action = Type.Unsafe<"create" | "update" | "unchanged" | "delete" | "refused">({
  type: "string",
  enum: ["create", "update", "unchanged", "delete", "refused"],
  description:
    "What applying does to the resource; delete: an arm or survey of the experiment the document no longer names",
});

/** One line of a plan: what applying does to one resource. */
export const StudyChange = Type.Object({
  resource: Type.Unsafe<
    "experiment" | "arm" | "layout" | "recommender" | "video" | "pool" | "survey" | "media"
  >({
    type: "string",
    enum: ["experiment", "arm", "layout", "recommender", "video", "pool", "survey", "media"],
    description: "media: an uploaded file the document names by content (refused while this server lacks it)",
  }),
  name: Type.String({ description: "The resource's name in the document (a video's external_id)" }),
  action: Action,
  fields: Type.Optional(Type.Array(Type.String(), { description: "update: the fields that change" })),
  reason: Type.Optional(
    Type.String({
      description: "refused: why, in the console's words; a copy: which name it takes, and why",
    }),
  ),
  code: Type.Optional(Type.String({ description: "refused: the error code the console answers" })),
});
export type StudyChange = Static<typeof StudyChange>;

export const StudyPlanBody = Type.Object(
  {
    definition: Type.Union(
      [Type.String({ maxLength: 50_000_000 }), Type.Record(Type.String(), Type.Unknown())],
      {
        description: "The study document, as YAML or JSON text, or as an object",
      },
    ),
    experiment_id: Type.Optional(
      Type.String({ format: "uuid", description: "Apply to this experiment; absent: a new experiment" }),
    ),
  },
  { additionalProperties: false },
);
export type StudyPlanBody = Static<typeof StudyPlanBody>;

export const StudyPlan = Type.Object({ changes: Type.Array(StudyChange) });
export type StudyPlan = Static<typeof StudyPlan>;

export const StudyApplied = Type.Object({
  experiment_id: Type.String({ format: "uuid" }),
  changes: Type.Array(StudyChange),
});
export type StudyApplied = Static<typeof StudyApplied>;

/** One problem of a document that breaks the schema (422 invalid_definition's details). */
export interface DefinitionProblem {
  readonly path: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
}

export const STUDY_SCHEMA_URL = "/api/v1/schemas/study.json";
