#!/usr/bin/env node
// Part of `npm run lint`: every table has one owner module, and others call its functions, never its
// SQL (STYLE.md, Data flow; docs/architecture.md, "Tables and their owners"). OWNERS below is the one
// list of who owns what. Production code outside a table's owner that names the table in a query
// (`db("t")` or `trx("t")`, `.from("t")`, `.join("t as x", ...)`, raw `from t`, `into t`, `update t`, `join t`...)
// fails the lint, unless the table lists it as a reader with why. A migration may touch the tables
// of its own workspace; a table a migration makes must be in the list.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import ts from "typescript";

/** Why an api file that reads several features' tables in one query is listed as a reader of each. */
const INTAKE =
  "intake resolves a batch's session to its participant, arm, experiment and layouts' versions in one query, cached per session";
const GATE =
  "the gate and /me read the participant, their arm and their experiment's study flow in one query on every participant request";
const ANSWERS_CSV =
  "the responses and dismissals CSVs stream each answer with its participant's login and arm name in one keyset-paged query";
const RESULT_ARMS =
  "the results' arms count their participants (in the study, excluded, assigned) in the grouped query that lists the arms";
const SURVEY_MEASURES =
  "re-summing survey measures locks the participants' rows (FOR NO KEY UPDATE) and upserts their responses' sums in one statement; duplicate recruiting ids are compared in one statement";
const MONITOR =
  "the monitor counts active real participants per arm over the session-activity read model, and each survey's respondents per arm, in one grouped query each";
const ROLE_CHECK =
  "the role check of every admin route under an experiment reads the account's role, the experiment its resource belongs to and the account's membership of it in one query";
const PARTICIPANT_PAGE =
  "the participants page counts each one's survey answers and dismissals in its one paged, sorted query";

/**
 * Each table's owner (a folder, or a file) and why it is that one. `readers`: other folders or files
 * that may read it in their own SQL, each with why it cannot call the owner's functions.
 */
const OWNERS = {
  // ingest: the event log.
  event_log: { owner: "ingest/src/log/", why: "the embedded log's records, appended by intake only" },
  event_log_erasures: { owner: "ingest/src/log/", why: "erased participants, written when the log erases" },
  event_log_keys: { owner: "ingest/src/log/", why: "the Kafka log's per-participant keys" },
  event_log_schemas: {
    owner: "ingest/src/log/",
    why: "the Avro schemas the log's records were written with",
  },
  event_log_topics: { owner: "ingest/src/log/", why: "the Kafka topics the log created" },

  // projector: the consumer, dead letters, rebuilds and one folder per read model.
  consumer_checkpoints: { owner: "projector/src/consumer/", why: "the offsets a batch stores with its rows" },
  dead_letters: {
    owner: "projector/src/apply/",
    why: "the records the applier could not apply, and their re-drive",
    readers: {
      "projector/src/consumer/checkpoints.ts": "its migration makes the table with the checkpoints'",
    },
  },
  projector_rebuilds: {
    owner: "projector/src/replay/",
    why: "read models waiting to be rebuilt from the log",
  },
  events: {
    owner: "projector/src/read-models/events/",
    why: "the events store, the first copy of each logged event",
    readers: {
      "projector/src/read-models/evaluation/evaluation.erase.ts":
        "an erase step takes the participant's events out of its totals in one statement, before the events store is erased",
      "projector/src/read-models/view-counts/view-counts.erase.ts":
        "an erase step takes the participant's plays out of its counts in one statement, before the events store is erased",
    },
  },
  watched_videos: { owner: "projector/src/read-models/watched/", why: "the watched read model" },
  co_views: { owner: "projector/src/read-models/co-views/", why: "the co-views read model" },
  co_view_videos: { owner: "projector/src/read-models/co-views/", why: "the co-views read model's videos" },
  video_view_counts: { owner: "projector/src/read-models/view-counts/", why: "the view counts read model" },
  interactions: {
    owner: "projector/src/read-models/interactions/",
    why: "the training interactions read model",
  },
  session_activity: {
    owner: "projector/src/read-models/session-activity/",
    why: "the session activity read model",
    readers: {
      "api/src/participants/queries/users.queries.ts":
        "assignment's balance leaves out a newcomer who sent no event for stale_minutes: whether any session of theirs has an event is one EXISTS inside the count, under the join's lock",
    },
  },
  session_time: {
    owner: "projector/src/read-models/session-activity/",
    why: "the session activity read model",
  },
  evaluation_counts: { owner: "projector/src/read-models/evaluation/", why: "the evaluation read model" },
  evaluation_timeline: { owner: "projector/src/read-models/evaluation/", why: "the evaluation read model" },
  quality_sessions: { owner: "projector/src/read-models/quality/", why: "the quality read model" },
  quality_timelines: { owner: "projector/src/read-models/quality/", why: "the quality read model" },
  quality_participants: { owner: "projector/src/read-models/quality/", why: "the quality read model" },
  response_latency: {
    owner: "projector/src/read-models/response-latency/",
    why: "the response latency read model",
  },

  // trainer: its queue of runs and its output.
  model_runs: {
    owner: "trainer/src/",
    why: "the trainer's queue and record of runs; the api queues through queueRun",
  },
  recommendation_cache: { owner: "trainer/src/", why: "the learned model's rankings, written by a run" },
  item_similarity: { owner: "trainer/src/", why: "the learned item-to-item neighbours, written by a run" },

  // api: the state it owns.
  feedlab_releases: {
    owner: "api/src/db/",
    why: "the releases that migrated the database, read to refuse a schema newer than the code",
  },
  app_settings: {
    owner: "api/src/packages/",
    why: "settings of the installation (the pseudonym secret)",
  },
  admins: { owner: "api/src/auth/", why: "the console's accounts and their roles" },
  experiment_members: { owner: "api/src/auth/", why: "who works on an experiment, and as what" },
  auth_sessions: { owner: "api/src/auth/", why: "the console's and participants' signed-in sessions" },
  audit_log: { owner: "api/src/audit/", why: "who changed what" },
  experiments: {
    owner: "api/src/experiments/",
    why: "the studies",
    readers: {
      "api/src/audit/audit.subjects.ts":
        "names a subject (arm, survey, participant) with its experiment in one lookup over whichever table holds it, a survey's name in its experiment's default language",
      "api/src/auth/access.ts": ROLE_CHECK,
      "api/src/auth/members.ts":
        "replacing an experiment's members locks its row (FOR UPDATE) in the replacement's transaction: one change at a time, none once it is gone",
      "api/src/events/events.service.ts": INTAKE,
      "api/src/groups/groups.service.ts":
        "an arm's update locks the arm and its experiment (FOR UPDATE) in one query, reading the status that decides whether the change is recorded",
      "api/src/groups/queries/groups.queries.ts":
        "the arms using a recommender or a layout are listed with their experiment's name, ordered by both names, in one query",
      "api/src/study/study-row.ts": GATE,
      "api/src/videos/queries/videos.queries.ts":
        "the experiments whose pools hold a video, running ones first then by name, in one query over the pool joined to the experiments",
      "trainer/src/runs.ts":
        "the schedule's due experiments: the trainer is below the api and cannot call it",
    },
  },
  exclusion_rule_changes: {
    owner: "api/src/experiments/",
    why: "the history of an experiment's exclusion rules",
  },
  groups: {
    owner: "api/src/groups/",
    why: "the arms of an experiment",
    readers: {
      "api/src/auth/access.ts": ROLE_CHECK,
      "api/src/events/events.service.ts": INTAKE,
      "api/src/results/arms.ts": RESULT_ARMS,
      "api/src/study/study-row.ts": GATE,
      "api/src/surveys/responses.csv.ts": ANSWERS_CSV,
      "trainer/src/runs.ts":
        "the schedule's due experiments: the trainer is below the api and cannot call it",
    },
  },
  group_changes: { owner: "api/src/groups/", why: "participants moved between arms" },
  videos: {
    owner: "api/src/videos/",
    why: "the video library",
    readers: {
      "trainer/src/": "the pool's videos and their metadata in training: the trainer is below the api",
    },
  },
  experiment_videos: {
    owner: "api/src/videos/",
    why: "an experiment's pool",
    readers: {
      "trainer/src/": "the pool's videos in training: the trainer is below the api",
    },
  },
  users: {
    owner: "api/src/participants/",
    why: "the participants",
    readers: {
      "api/src/auth/access.ts": ROLE_CHECK,
      "api/src/auth/auth.service.ts":
        "a request's session token resolves to its admin or participant in one query on every request",
      "api/src/events/events.service.ts": INTAKE,
      "api/src/quality/quality.service.ts":
        "the quality report reads each participant with their events' and surveys' sums beside them in one statement",
      "api/src/quality/survey-measures.ts": SURVEY_MEASURES,
      "api/src/results/arms.ts": RESULT_ARMS,
      "api/src/results/completeness.service.ts":
        "the completeness report reads each participant with their sessions' sums beside them in one statement",
      "api/src/results/monitor.service.ts": MONITOR,
      "api/src/study/study-row.ts": GATE,
      "api/src/surveys/responses.csv.ts": ANSWERS_CSV,
      "projector/src/read-models/interactions/interactions.queries.ts":
        "leaves out simulated and excluded participants in the query: the projector is below the api",
      "projector/src/read-models/response-latency/response-latency.queries.ts":
        "leaves out simulated and excluded participants in the query: the projector is below the api",
      "trainer/src/runner.ts": "keeps rankings of participants still there: the trainer is below the api",
    },
  },
  participant_language_changes: { owner: "api/src/study/", why: "a participant's language over time" },
  sessions: {
    owner: "api/src/sessions/",
    why: "participants' visits",
    readers: {
      "api/src/events/events.service.ts": INTAKE,
    },
  },
  surveys: {
    owner: "api/src/surveys/",
    why: "an experiment's surveys",
    readers: {
      "api/src/auth/access.ts": ROLE_CHECK,
      "api/src/quality/survey-measures.ts": SURVEY_MEASURES,
    },
  },
  participant_keys: {
    owner: "api/src/reminders/queries/",
    why: "each participant's own key, which seals their address for reminders",
  },
  participant_contacts: {
    owner: "api/src/reminders/queries/",
    why: "participants' addresses for reminders, sealed, and their unsubscribe links",
  },
  reminder_messages: {
    owner: "api/src/reminders/queries/",
    why: "reminders claimed before they leave, so none is sent twice",
  },
  prolific_approvals: {
    owner: "api/src/prolific/",
    why: "approvals on finish still to reach Prolific, retried until it accepts them",
  },
  prolific_bonuses: {
    owner: "api/src/prolific/",
    why: "bonus plans set up on Prolific and, at most once, paid",
  },
  survey_responses: {
    owner: "api/src/surveys/",
    why: "participants' answers",
    readers: {
      "api/src/participants/participants.list.ts": PARTICIPANT_PAGE,
      "api/src/quality/survey-measures.ts": SURVEY_MEASURES,
      "api/src/results/monitor.service.ts": MONITOR,
    },
  },
  survey_dismissals: {
    owner: "api/src/surveys/",
    why: "surveys a participant dismissed",
    readers: {
      "api/src/participants/participants.list.ts": PARTICIPANT_PAGE,
    },
  },
  participant_survey_measures: { owner: "api/src/quality/", why: "the quality measures of survey answers" },
  ui_templates: {
    owner: "api/src/ui/",
    why: "the layouts",
    readers: {
      "api/src/events/events.service.ts": INTAKE,
    },
  },
  recommenders: {
    owner: "api/src/recommenders/",
    why: "registered external recommenders",
  },
  recommender_calls: { owner: "api/src/monitoring/", why: "the calls to recommenders, for monitoring" },
  rejected_events: {
    owner: "api/src/monitoring/",
    why: "batches intake refused, for monitoring",
  },
  media_files: {
    owner: "api/src/media/",
    why: "uploaded media",
  },
  dry_runs: { owner: "api/src/simulation/dry-runs/", why: "the dry runs and their reports" },
};

/** Files that define migrations: they may touch any table of their own workspace. */
const MIGRATION = /(\/migrations\/[^/]+\.ts|\.migration\.ts)$/;
const SCANNED = /^(schemas|sql|ingest|projector|trainer|api)\/src\/.*\.tsx?$/;
const NOT_PRODUCTION = /(\.test\.tsx?|\.fixture\.ts|\.d\.ts)$/;
/** The names the code gives a knex instance or transaction, called with a table: `db("t")`. */
const KNEX_HANDLES = /^(db|trx|tx|sql|knex|q)$/;
/** knex methods whose first argument is a table. */
const TABLE_METHODS = new Set([
  "from",
  "into",
  "table",
  "update",
  "join",
  "innerJoin",
  "leftJoin",
  "leftOuterJoin",
  "rightJoin",
  "rightOuterJoin",
  "fullOuterJoin",
  "crossJoin",
  "createTable",
  "createTableIfNotExists",
  "alterTable",
  "dropTable",
  "dropTableIfExists",
  "hasTable",
  "renameTable",
]);

const tables = Object.keys(OWNERS);
const TABLE_ARG = /^\s*"?([a-z_]+)"?(\s+as\s+\w+)?\s*$/i;
const SQL = new RegExp(`\\b(?:from|into|update|join|table)\\s+"?(${tables.join("|")})\\b`, "gi");
const CREATED = /\bcreate\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?"?([a-z_]+)/gi;

const workspace = (path) => path.split("/")[0];
const allowed = (file, table) => {
  const entry = OWNERS[table];
  if (file.startsWith(entry.owner)) return true;
  if (MIGRATION.test(file) && workspace(file) === workspace(entry.owner)) return true;
  return Object.keys(entry.readers ?? {}).some((reader) => file.startsWith(reader));
};

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => SCANNED.test(f) && !NOT_PRODUCTION.test(f));

const problems = [];
const created = new Set();
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    continue; // deleted in the working tree
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  /** The tables the file's queries name, with the line of each. */
  const named = [];
  const visit = (node) => {
    const line = () => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
    if (ts.isCallExpression(node) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const callee = node.expression;
      const table = TABLE_ARG.exec(node.arguments[0].text)?.[1];
      const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : null;
      // `db("t")`, and a handle reached through an object: `run.db("t")`, `this.trx("t")`.
      const handle =
        (ts.isIdentifier(callee) && KNEX_HANDLES.test(callee.text)) ||
        (ts.isPropertyAccessExpression(callee) && KNEX_HANDLES.test(callee.name.text));
      if (table && (handle || TABLE_METHODS.has(method))) {
        if (method === "createTable" || method === "createTableIfNotExists") created.add(table);
        if (Object.hasOwn(OWNERS, table)) named.push([table, line()]);
      }
    }
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      for (const m of node.text.matchAll(SQL)) named.push([m[1].toLowerCase(), line()]);
      for (const m of node.text.matchAll(CREATED)) created.add(m[1].toLowerCase());
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const [table, line] of named)
    if (!allowed(file, table))
      problems.push(
        `${file}:${line}: SQL on "${table}", which ${OWNERS[table].owner} owns: call a function it exports (or list the reader, with why, in scripts/table-owners.mjs)`,
      );
}
for (const table of created)
  if (!Object.hasOwn(OWNERS, table))
    problems.push(
      `"${table}" is made by a migration but has no owner: add it to OWNERS in scripts/table-owners.mjs`,
    );
for (const table of tables)
  if (!created.has(table))
    problems.push(`"${table}" is listed in scripts/table-owners.mjs but no migration makes it`);

if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(`table owners: ${tables.length} tables, each queried only by its owner and the readers listed`);
