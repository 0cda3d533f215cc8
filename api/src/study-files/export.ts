import type { AdminSurvey, Experiment, Group, RecommenderView, UiTemplate, Video } from "@feedlab/schemas";
import { DEFAULT_LANGUAGE, STUDY_FORMAT, STUDY_SCHEMA_URL, StudyDocument } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { Document, parse, visit } from "yaml";
import { isBuiltinKey } from "../recommenders/builtins.ts";
import { externalRecommenderKeysAmong } from "../recommenders/queries/recommenders.queries.ts";
import { videoRowsByIds } from "../videos/queries/videos.queries.ts";
import { presentVideo, type VideoRow } from "../videos/videos.service.ts";
import { namedByContent } from "./media.ts";
import type { StudyServices } from "./services.ts";

type Arm = StudyDocument["arms"][number];
type Layout = NonNullable<StudyDocument["layouts"]>[number];
type Recommender = NonNullable<StudyDocument["recommenders"]>[number];
type PoolVideo = NonNullable<StudyDocument["pool"]>[number];
type Survey = NonNullable<StudyDocument["surveys"]>[number];

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/**
 * The environment variable a header's value is read from when the document is applied: never the
 * value itself (api.md "Trust boundaries": `FEEDLAB_SECRET_<KEY>_<HEADER>`, upper case, every other
 * character as `_`; applying reads no other names).
 */
export const headerEnvName = (key: string, header: string) =>
  `FEEDLAB_SECRET_${`${key}_${header}`.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;

/** A layout as the document writes it: a code layout's source, a block layout's tree. */
export function layoutOf(t: UiTemplate, name = t.name): Layout {
  return t.template_type === "code"
    ? { name, page: t.page, template_type: "code", source: t.source ?? "" }
    : { name, page: t.page, template_type: "blocks", tree: t.tree ?? {} };
}

/** A registered recommender as the document writes it: header values become references. */
function recommenderOf(r: RecommenderView): Recommender {
  const { headers, ...config } = r.config as Recommender["config"] & { headers?: Record<string, string> };
  const refs = Object.fromEntries(
    Object.keys(headers ?? {}).map((h) => [h, `\${${headerEnvName(r.key, h)}}`]),
  );
  return {
    key: r.key,
    label: r.label,
    description: r.description,
    category: r.category,
    supports_feed: r.supports_feed,
    supports_watch: r.supports_watch,
    config: { ...config, ...(Object.keys(refs).length > 0 ? { headers: refs } : {}) },
  };
}

/** A video's metadata fields besides url and title, each as it is when not given. */
export const emptyMetadata = () => ({
  channel_name: null,
  category: null,
  description: null,
  tags: [] as string[],
  duration_seconds: null,
  view_count: null,
  thumbnail_url: null,
  published_at: null,
  comments: [] as Video["comments"],
  captions: [] as Video["captions"],
});

/** A video as the document writes it: its metadata, without what is empty. */
export function poolVideoOf(v: Video): PoolVideo {
  const out: Record<string, unknown> = { external_id: v.external_id, url: v.url, title: v.title };
  for (const k of Object.keys(emptyMetadata()) as (keyof ReturnType<typeof emptyMetadata>)[]) {
    const value = v[k];
    if (value === null || (Array.isArray(value) && value.length === 0)) continue;
    out[k] = value;
  }
  return out as PoolVideo;
}

export const surveyOf = (s: AdminSurvey): Survey => ({
  name: s.name,
  kind: s.kind,
  active: s.is_active,
  questions: s.questions.map(({ attention_answer, ...q }) =>
    attention_answer === undefined || attention_answer === null ? q : { ...q, attention_answer },
  ),
});

/** The videos of an experiment's pool, in its order. */
async function poolVideos(db: Db, s: StudyServices, experimentId: string): Promise<Video[]> {
  const ids = await s.videos.getPool(experimentId);
  const byId = new Map<string, Video>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await videoRowsByIds<VideoRow>(db, ids.slice(i, i + 1000));
    for (const r of rows) byId.set(r.id, presentVideo(r));
  }
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Names each of the arms' templates uniquely in the document (a clash gets " (2)", " (3)"...). */
function layoutNames(templates: readonly UiTemplate[]): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const t of templates) {
    let name = t.name;
    for (let n = 2; taken.has(name); n++) name = `${t.name} (${n})`;
    taken.add(name);
    names.set(t.id, name);
  }
  return names;
}

/** The study document of an experiment (api.md `GET .../definition`); 404 for an unknown one. */
export async function exportStudy(db: Db, s: StudyServices, experimentId: string): Promise<StudyDocument> {
  const experiment = await s.experiments.get(experimentId);
  const [groups, surveys, pool] = await Promise.all([
    s.groups.list(experimentId),
    s.surveys.list(experimentId),
    poolVideos(db, s, experimentId),
  ]);
  const templateIds = [...new Set(groups.flatMap((g) => [g.ui_config.feed, g.ui_config.watch]))].filter(
    isUuid,
  );
  const templates = await Promise.all(templateIds.map((id) => s.templates.get(id)));
  const names = layoutNames(templates);
  const recommenderKeys = [
    ...new Set(
      groups.flatMap((g) => [
        g.algorithm_config.feed,
        g.algorithm_config.watch,
        ...Object.keys(g.recommender_params ?? {}),
      ]),
    ),
  ].filter((k) => !isBuiltinKey(k));
  const externalKeys: string[] =
    recommenderKeys.length === 0 ? [] : await externalRecommenderKeysAmong(db, recommenderKeys);
  const registered = await Promise.all(externalKeys.map((key) => s.registry.read(key)));
  const arm = (g: Group): Arm => ({
    name: g.name,
    weight: g.weight,
    algorithm: { feed: g.algorithm_config.feed, watch: g.algorithm_config.watch },
    ...(Object.keys(g.recommender_params ?? {}).length > 0
      ? { recommender_params: g.recommender_params }
      : {}),
    ui: {
      feed: names.get(g.ui_config.feed) ?? g.ui_config.feed,
      watch: names.get(g.ui_config.watch) ?? g.ui_config.watch,
    },
    ...(g.cap === null ? {} : { cap: g.cap }),
    ...(g.paused ? { paused: true } : {}),
  });
  return inSchemaOrder(
    {
      feedlab_study: STUDY_FORMAT,
      name: experiment.name,
      description: experiment.description,
      consent_text: experiment.consent_text,
      completion: experiment.completion,
      exclusion_rules: experiment.exclusion_rules,
      min_response_ms: experiment.min_response_ms,
      // A study in English alone says nothing of languages (as documents written before them).
      ...(isOnlyEnglish(experiment)
        ? {}
        : {
            languages: experiment.languages,
            default_language: experiment.default_language,
            language_switch: experiment.language_switch,
          }),
      // The default method says nothing (as documents written before assignment methods).
      ...(isDefaultAssignment(experiment.assignment) ? {} : { assignment: experiment.assignment }),
      ...(experiment.prolific === null ? {} : { prolific: experiment.prolific }),
      ...(experiment.schedule.length === 0 ? {} : { schedule: experiment.schedule }),
      ...(experiment.reminders === null ? {} : { reminders: experiment.reminders }),
      arms: groups.map(arm),
      layouts: templates.map((t) => layoutOf(t, names.get(t.id))),
      recommenders: registered.sort((a, b) => a.key.localeCompare(b.key)).map(recommenderOf),
      pool: await namedByContent(db, pool.map(poolVideoOf)),
      surveys: surveys.map(surveyOf),
    },
    StudyDocument as SchemaNode,
  ) as StudyDocument;
}

/** Balanced by weight, counting everyone who joined, and nothing else set: the default. */
const isDefaultAssignment = (a: Experiment["assignment"]) =>
  a.method === "balanced" && (a.counts ?? "joined") === "joined" && Object.keys(a).length <= 2;

/** A study with the default languages: English alone, no switching. */
const isOnlyEnglish = (e: Experiment) =>
  e.languages.length === 1 &&
  e.languages[0] === DEFAULT_LANGUAGE &&
  e.default_language === DEFAULT_LANGUAGE &&
  !e.language_switch;

type SchemaNode = { properties?: Record<string, SchemaNode>; items?: SchemaNode; anyOf?: SchemaNode[] };

/**
 * `value` with its objects' keys in the order the schema lists them (stored JSON comes back in the
 * database's order), so an export reads the same way every time and diffs stay small.
 */
function inSchemaOrder(value: unknown, schema: SchemaNode | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => inSchemaOrder(v, schema?.items));
  if (value === null || typeof value !== "object" || !schema) return value;
  const shape = schema.properties ? schema : schema.anyOf?.find((s) => s.properties);
  const props = shape?.properties;
  if (!props) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const rank = (k: string) => {
    const i = Object.keys(props).indexOf(k);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  return Object.fromEntries(
    entries.sort(([a], [b]) => rank(a) - rank(b)).map(([k, v]) => [k, inSchemaOrder(v, props[k])]),
  );
}

/** The first characters of every plain scalar a YAML 1.1 reader (PyYAML's resolvers) may type. */
const TYPED_IN_YAML_11 = /^[-+0-9.:~yYnNtTfFoO<=]/;

/**
 * Whether a YAML 1.1 reader such as PyYAML would read this string, written plain, as something else:
 * `yes`, `no`, `on` and `off` as booleans, `2026-01-01T00:00:00.000Z` as a datetime, `1:20` as 80,
 * `010` as 8, `~` as null; `=` and `<<` are keys of their own there.
 */
function readsOtherwiseInYaml11(text: string): boolean {
  if (!TYPED_IN_YAML_11.test(text)) return false;
  if (text === "=" || text === "<<") return true;
  try {
    return parse(text, { version: "1.1" }) !== text;
  } catch {
    return false; // not a plain scalar at all: the 1.2 writer quotes it anyway
  }
}

/**
 * The study schema's address on this server as a request reached it (relative without a Host
 * header): what an exported document's first line names, in a download or a package.
 */
export const studySchemaUrl = (request: { readonly host: string; readonly protocol: string }) =>
  request.host ? `${request.protocol}://${request.host}${STUDY_SCHEMA_URL}` : STUDY_SCHEMA_URL;

/**
 * The document as YAML, with a first line that tells editors where its schema is. Strings a YAML 1.1
 * reader would type otherwise are quoted, so Python's usual loader reads what the JSON export says.
 */
export function studyYaml(doc: StudyDocument, schemaUrl: string): string {
  const yaml = new Document(doc, { aliasDuplicateObjects: false });
  visit(yaml, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && readsOtherwiseInYaml11(node.value)) node.type = "QUOTE_DOUBLE";
    },
  });
  return `# yaml-language-server: $schema=${schemaUrl}\n${yaml.toString({ lineWidth: 0 })}`;
}
