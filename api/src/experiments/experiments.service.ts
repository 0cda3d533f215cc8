import type { Experiment, ExperimentCreate, ExperimentPatch, ExperimentStatus } from "@feedlab/schemas";
import { iso } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { notFound, unprocessable } from "../http/errors.ts";
import { readinessProblems } from "./readiness.ts";

interface ExperimentRow {
  id: string;
  name: string;
  description: string;
  status: ExperimentStatus;
  created_at: Date;
  updated_at: Date;
}

export const presentExperiment = (r: ExperimentRow): Experiment => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export function createExperimentsService({ db, newId, now }: ServiceDeps) {
  return {
    async create(input: ExperimentCreate, status: ExperimentStatus = "draft"): Promise<Experiment> {
      const at = now();
      const row: ExperimentRow = {
        id: newId(),
        name: input.name,
        description: input.description ?? "",
        status,
        created_at: at,
        updated_at: at,
      };
      await db("experiments").insert(row);
      return presentExperiment(row);
    },

    async list(): Promise<Experiment[]> {
      const rows = await db<ExperimentRow>("experiments").select("*").orderBy("created_at", "desc");
      return rows.map(presentExperiment);
    },

    async get(id: string): Promise<Experiment> {
      const row = await db<ExperimentRow>("experiments").where({ id }).first();
      if (!row) throw notFound("experiment");
      return presentExperiment(row);
    },

    async update(id: string, patch: ExperimentPatch): Promise<Experiment> {
      if (patch.status === "running") {
        const current = await db<ExperimentRow>("experiments").where({ id }).first("status");
        if (!current) throw notFound("experiment");
        if (current.status !== "running") {
          const problems = await readinessProblems(db, id);
          if (problems.length > 0)
            throw unprocessable(
              "experiment_not_ready",
              `The experiment cannot start yet: ${problems.map((p) => p.message).join(" ")}`,
              { problems },
            );
        }
      }
      const [row] = await db<ExperimentRow>("experiments")
        .where({ id })
        .update({ ...patch, updated_at: now() })
        .returning("*");
      if (!row) throw notFound("experiment");
      return presentExperiment(row);
    },

    /** Deletes the experiment; groups, pool links and participants go with it (foreign keys cascade). */
    async remove(id: string): Promise<void> {
      const n = await db("experiments").where({ id }).delete();
      if (n === 0) throw notFound("experiment");
    },
  };
}

export type ExperimentsService = ReturnType<typeof createExperimentsService>;
