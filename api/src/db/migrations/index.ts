import { eventLogMigrations } from "@feedlab/ingest";
import { PROJECTOR_MIGRATIONS } from "@feedlab/projector";
import type { Migration } from "@feedlab/sql";
import { trainerMigrations } from "@feedlab/trainer";
import type { Knex } from "knex";
import * as foundation from "./001-foundation.ts";
import * as recommenders from "./003-recommenders.ts";
import * as surveys from "./020-surveys.ts";
import * as uiTemplates from "./021-ui-templates.ts";
import * as monitoring from "./022-monitoring.ts";
import * as recruiting from "./023-recruiting.ts";
import * as studyFlow from "./024-study-flow.ts";
import * as audit from "./025-audit.ts";
import * as dismissalsOnce from "./026-dismissals-once.ts";
import * as videoCaptions from "./027-video-captions.ts";
import * as dryRuns from "./028-dry-runs.ts";
import * as validity from "./029-validity.ts";
import * as mediaFiles from "./030-media-files.ts";
import * as studyScale from "./031-study-scale.ts";
import * as surveyVerdicts from "./032-survey-verdicts.ts";
import * as surveyMeasures from "./033-survey-measures.ts";
import * as languages from "./034-languages.ts";
import * as localizedTexts from "./035-localized-texts.ts";
import * as teams from "./036-teams.ts";
import * as assignment from "./037-assignment.ts";
import * as assignmentWaits from "./038-assignment-waits.ts";
import * as prolific from "./039-prolific.ts";
import * as longitudinal from "./040-longitudinal.ts";
import * as releases from "./041-releases.ts";

/**
 * The api's own tables: the state it owns (not events). Their names are those release 0.1.0 gave
 * them; the spec pins the survey tables to migration 020.
 */
const API_MIGRATIONS = {
  foundation: { name: "001-foundation", ...foundation },
  recommenders: { name: "003-recommenders", ...recommenders },
  surveys: { name: "020-surveys", ...surveys },
  uiTemplates: { name: "021-ui-templates", ...uiTemplates },
  monitoring: { name: "022-monitoring", ...monitoring },
  recruiting: { name: "023-recruiting", ...recruiting },
  studyFlow: { name: "024-study-flow", ...studyFlow },
  audit: { name: "025-audit", ...audit },
  dismissalsOnce: { name: "026-dismissals-once", ...dismissalsOnce },
  videoCaptions: { name: "027-video-captions", ...videoCaptions },
  dryRuns: { name: "028-dry-runs", ...dryRuns },
  validity: { name: "029-validity", ...validity },
  mediaFiles: { name: "030-media-files", ...mediaFiles },
  studyScale: { name: "031-study-scale", ...studyScale },
  surveyVerdicts: { name: "032-survey-verdicts", ...surveyVerdicts },
  surveyMeasures: { name: "033-survey-measures", ...surveyMeasures },
  languages: { name: "034-languages", ...languages },
  localizedTexts: { name: "035-localized-texts", ...localizedTexts },
  teams: { name: "036-teams", ...teams },
  assignment: { name: "037-assignment", ...assignment },
  assignmentWaits: { name: "038-assignment-waits", ...assignmentWaits },
  prolific: { name: "039-prolific", ...prolific },
  longitudinal: { name: "040-longitudinal", ...longitudinal },
  releases: { name: "041-releases", ...releases },
} satisfies Record<string, Migration>;

/**
 * Every table's schema changes, each defined by the workspace that writes the table, in an order
 * that satisfies their references (the trainer's tables reference experiments and users). Names are
 * recorded in `knex_migrations` and never change.
 */
export const MIGRATIONS: readonly Migration[] = [
  API_MIGRATIONS.foundation,
  ...eventLogMigrations,
  ...PROJECTOR_MIGRATIONS,
  API_MIGRATIONS.recommenders,
  ...trainerMigrations,
  API_MIGRATIONS.surveys,
  API_MIGRATIONS.uiTemplates,
  API_MIGRATIONS.monitoring,
  API_MIGRATIONS.recruiting,
  API_MIGRATIONS.studyFlow,
  API_MIGRATIONS.audit,
  API_MIGRATIONS.dismissalsOnce,
  API_MIGRATIONS.videoCaptions,
  API_MIGRATIONS.dryRuns,
  API_MIGRATIONS.validity,
  API_MIGRATIONS.mediaFiles,
  API_MIGRATIONS.studyScale,
  API_MIGRATIONS.surveyVerdicts,
  API_MIGRATIONS.surveyMeasures,
  API_MIGRATIONS.languages,
  API_MIGRATIONS.localizedTexts,
  API_MIGRATIONS.teams,
  API_MIGRATIONS.assignment,
  API_MIGRATIONS.assignmentWaits,
  API_MIGRATIONS.prolific,
  API_MIGRATIONS.longitudinal,
  API_MIGRATIONS.releases,
];

/**
 * Release 0.1.0 kept every table in api migrations. Those that also made other workspaces' tables
 * stand for the owners' migrations that create the same tables, so a database it created takes the
 * new names without a change.
 */
const LEGACY_MIGRATIONS: Readonly<Record<string, readonly string[]>> = {
  "002-events": [
    "ingest/001-event-log",
    "projector/001-consumer",
    "projector/events/001-table",
    "projector/watched/001-table",
    "projector/co-views/001-table",
    "projector/view-counts/001-table",
    "projector/interactions/001-table",
    "projector/session-activity/001-table",
  ],
  "003-recommenders": ["003-recommenders", "trainer/001-model-output", "projector/co-views/002-top-indexes"],
  "004-model-runs": ["trainer/002-model-runs"],
};

/**
 * The migrations a database that recorded `recorded` has applied, in this release's names: 0.1.0's
 * names stand for the owners' migrations they made (as `adoptLegacyMigrations` records them), and a
 * name this release does not know stays as it is.
 */
export function appliedNames(recorded: Iterable<string>): Set<string> {
  const applied = new Set<string>();
  for (const name of recorded) {
    const owners = LEGACY_MIGRATIONS[name];
    if (!owners) applied.add(name);
    else for (const owner of owners) applied.add(owner);
  }
  return applied;
}

/**
 * Records, for each 0.1.0 migration a database has applied, the migrations that now define the same
 * tables (same batch and time), in one transaction; nothing else changes. Answers the 0.1.0 names
 * it replaced: none on a new database or on one already adopted.
 */
export async function adoptLegacyMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable("knex_migrations"))) return [];
  return db.transaction(async (trx) => {
    const recorded = new Set(
      ((await trx("knex_migrations").select("name")) as { name: string }[]).map((r) => r.name),
    );
    const legacy = (await trx("knex_migrations")
      .whereIn("name", Object.keys(LEGACY_MIGRATIONS))
      .select("name", "batch", "migration_time")) as { name: string; batch: number; migration_time: Date }[];
    const adopted: string[] = [];
    for (const row of legacy) {
      const names = LEGACY_MIGRATIONS[row.name] ?? [];
      if (names.every((name) => recorded.has(name))) continue;
      if (!names.includes(row.name)) await trx("knex_migrations").where({ name: row.name }).delete();
      const missing = names.filter((name) => !recorded.has(name));
      await trx("knex_migrations").insert(
        missing.map((name) => ({ name, batch: row.batch, migration_time: row.migration_time })),
      );
      for (const name of missing) recorded.add(name);
      adopted.push(row.name);
    }
    return adopted;
  });
}

export const migrationSource: Knex.MigrationSource<Migration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m,
};
