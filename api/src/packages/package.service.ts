import type { Readable } from "node:stream";
import { DEFAULT_LANGUAGE, STUDY_SCHEMA_URL, type StudyDocument } from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { ZipFile } from "yazl";
import type { EventStoreReader } from "../events/event-store.read.ts";
import type { GroupsService } from "../groups/groups.service.ts";
import type { StatsService } from "../results/stats.service.ts";
import { studyYaml } from "../study-files/export.ts";
import { researcherSurvey, type SurveysService } from "../surveys/surveys.service.ts";
import { templateNames as layoutNames } from "../ui/queries/templates.queries.ts";
import { analysisScript } from "./analysis-script.ts";
import { codebook } from "./codebook.ts";
import { dataPackage, type PackageFile, slugOf } from "./datapackage.ts";
import { createPseudonymizer } from "./pseudonyms.ts";
import { type Table, tableCsv, tableParquet } from "./table.ts";
import { armsTable, eventsTable, participantsTable, responsesTable } from "./tables.ts";

/** The files of a package besides its tables, and what each holds (datapackage.json, codebook.md). */
const FILES: readonly PackageFile[] = [
  { path: "datapackage.json", description: "The Frictionless Data Package descriptor: every table's schema" },
  { path: "codebook.md", description: "Every column, every event type's payload, and what each arm changed" },
  {
    path: "study.yaml",
    description: "The study definition (api.md): apply it to a Feedlab server to run the study again",
  },
  {
    path: "stats.json",
    description: "The results per arm and recommender as Feedlab computed them (GET .../stats)",
  },
  {
    path: "analysis.py",
    description: "Recomputes stats.json's counts and rates from the tables with pandas: python3 analysis.py",
  },
];

export interface PackageOptions {
  /** Login ids as pseudonyms, recruiting ids left out (pseudonyms.ts). */
  readonly pseudonymize?: boolean;
  /** Where study.yaml's first line tells editors its JSON Schema is (the server's own, by default). */
  readonly schemaUrl?: string;
}

/** A package ready to be sent: its file name and the zip's bytes, made as they are read. */
export interface ReplicationPackage {
  readonly filename: string;
  readonly zip: Readable;
}

/**
 * Replication packages (issue 38, api.md "Study definitions and packages", docs/packages.md): a zip
 * of an experiment's tables as CSV and Parquet with a Frictionless descriptor, the study document,
 * the results, a codebook and an analysis script. Everything but the tables is made before the zip
 * starts (so a failure there is an ordinary error answer); the tables are read from the database as
 * the zip is written, one file after the other, so memory stays flat whatever the study's size.
 */
export function createPackageService(deps: {
  readonly db: Db;
  readonly eventStore: EventStoreReader;
  readonly stats: StatsService;
  readonly groups: GroupsService;
  readonly surveys: SurveysService;
  /** The experiment's study document (the study files' export); 404 for an unknown experiment. */
  readonly exportStudy: (experimentId: string) => Promise<StudyDocument>;
  readonly now: () => Date;
}) {
  const { db, eventStore } = deps;

  return {
    async build(experimentId: string, options: PackageOptions = {}): Promise<ReplicationPackage> {
      // 404 for an unknown experiment, before anything else.
      const study = await deps.exportStudy(experimentId);
      const pseudonymized = options.pseudonymize === true;
      const [stats, groups, surveys, templates, scrub] = await Promise.all([
        deps.stats.forExperiment(experimentId),
        deps.groups.list(experimentId),
        deps.surveys.list(experimentId),
        layoutNames(db),
        pseudonymized ? createPseudonymizer(db, experimentId) : null,
      ]);
      const templateNames = templates;
      const created = deps.now().toISOString();
      const tables: Table[] = [
        armsTable(groups, stats.groups, templateNames),
        await participantsTable(db, experimentId, scrub),
        eventsTable(eventStore, experimentId, scrub),
        responsesTable(
          db,
          surveys.map((s) => researcherSurvey(s, study.default_language ?? DEFAULT_LANGUAGE)),
          scrub,
        ),
      ];
      const title = `${study.name}: replication package`;
      const descriptor = dataPackage({
        name: `feedlab-${slugOf(study.name)}`,
        title,
        description:
          `${typeof study.description === "string" ? study.description : ""}`.trim() ||
          `Data of the Feedlab study "${study.name}".`,
        created,
        pseudonymized,
        tables,
        files: FILES,
      });
      const zip = new ZipFile();
      const mtime = new Date(created);
      const text = (body: string, name: string) => zip.addBuffer(Buffer.from(body, "utf8"), name, { mtime });
      text(`${JSON.stringify(descriptor, null, 2)}\n`, "datapackage.json");
      text(
        codebook({ title, created, pseudonymized, tables, files: FILES, groups, templateNames }),
        "codebook.md",
      );
      text(studyYaml(study, options.schemaUrl ?? STUDY_SCHEMA_URL), "study.yaml");
      text(`${JSON.stringify(stats, null, 2)}\n`, "stats.json");
      zip.addBuffer(Buffer.from(analysisScript(), "utf8"), "analysis.py", { mtime, mode: 0o100755 });
      const output = zip.outputStream as Readable;
      /**
       * A file made when the zip reaches it. yazl does not pass on a failing input's error: it goes to
       * the zip's output, which the response then cuts short (clients see an incomplete download).
       */
      const later = (name: string, make: () => Readable, compress = true) =>
        zip.addReadStreamLazy(name, { mtime, compress }, (done) => {
          const input = make();
          input.once("error", (err) => output.destroy(err));
          done(null, input);
        });
      for (const table of tables) {
        later(`${table.name}.csv`, () => tableCsv(table));
        // Parquet pages are compressed already.
        later(`${table.name}.parquet`, () => tableParquet(table), false);
      }
      zip.end();
      return {
        filename: `feedlab-${slugOf(study.name)}-package${pseudonymized ? "-pseudonymized" : ""}.zip`,
        zip: output,
      };
    },
  };
}

export type PackageService = ReturnType<typeof createPackageService>;
