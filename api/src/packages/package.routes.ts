import { ErrorBody, IdParams } from "@feedlab/schemas";
import { Type } from "@sinclair/typebox";
import { pseudonymizedOnly } from "../auth/access.ts";
import { route } from "../http/route.ts";
import { studySchemaUrl } from "../study-files/export.ts";
import type { PackageService } from "./package.service.ts";

const PackageQuery = Type.Object({
  pseudonymize: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        "true: each login id becomes a pseudonym (p- and 16 hex digits of an HMAC under a key of the experiment, the same in every file and download), and recruiting ids (PROLIFIC_PID, STUDY_ID, SESSION_ID, workerId, assignmentId, hitId) are left out of every table, payload and URL",
    }),
  ),
});

/** The replication package of an experiment (api.md "Study definitions and packages"; docs/packages.md). */
export function packageRoutes({ packages }: { readonly packages: PackageService }) {
  return [
    route({
      method: "get",
      path: "/api/v1/admin/experiments/{id}/package",
      audit: "export.package",
      tag: "results",
      summary: "The replication package: data, study definition, results, codebook and analysis script (zip)",
      description:
        "A zip, streamed: datapackage.json (a Frictionless Tabular Data Package: every table's Table Schema with types, descriptions, primary and foreign keys), arms.csv, participants.csv, events.csv and survey_responses.csv (one row per response, a column per question) each with a Parquet copy beside it (declared as resources of format parquet), study.yaml (the study definition), stats.json (GET .../stats), codebook.md (every column, every event type's payload fields from the contract, what each arm changed) and analysis.py (recomputes stats.json's counts and rates from the tables with pandas). Simulated participants are left out. See docs/packages.md.",
      access: "admin",
      role: "analyst",
      params: IdParams,
      query: PackageQuery,
      responses: {
        200: { description: "The package", contentType: "application/zip" },
        404: { description: "Unknown experiment", schema: ErrorBody },
      },
      handler: async (ctx, { params, query }) => {
        const pkg = await packages.build(params.id, {
          // A member whose exports are pseudonymized only gets the pseudonymized package, whatever they ask.
          pseudonymize: query.pseudonymize === true || pseudonymizedOnly(ctx),
          schemaUrl: studySchemaUrl(ctx),
        });
        ctx.type = "application/zip";
        ctx.attachment(pkg.filename);
        ctx.body = pkg.zip;
      },
    }),
  ];
}
