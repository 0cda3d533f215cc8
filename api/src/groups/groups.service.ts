import type { ArmChange, Group, GroupCreate, GroupPatch, SurfaceConfig } from "@feedlab/schemas";
import { iso, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { assertExperiment } from "../experiments/exists.ts";
import { experimentExists } from "../experiments/queries/experiments.queries.ts";
import { conflict, notFound, unprocessable } from "../http/errors.ts";
import { participantCountsByArm } from "../participants/queries/users.queries.ts";
import type { RecommenderCatalog } from "../recommenders/catalog.ts";

interface GroupRow {
  id: string;
  experiment_id: string;
  name: string;
  weight: number;
  algorithm_feed: string;
  algorithm_watch: string;
  ui_feed: string;
  ui_watch: string;
  recommender_params: unknown;
  cap: number | null;
  paused: boolean;
  created_at: Date;
  updated_at: Date;
  participant_count?: number | string;
  simulated_participant_count?: number | string;
}

const presentGroup = (r: GroupRow): Group => ({
  id: r.id,
  experiment_id: r.experiment_id,
  name: r.name,
  weight: Number(r.weight),
  algorithm_config: { feed: r.algorithm_feed, watch: r.algorithm_watch },
  ui_config: { feed: r.ui_feed, watch: r.ui_watch },
  recommender_params: json(r.recommender_params, {}),
  cap: r.cap === null || r.cap === undefined ? null : Number(r.cap),
  paused: r.paused === true,
  participant_count: Number(r.participant_count ?? 0),
  simulated_participant_count: Number(r.simulated_participant_count ?? 0),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/**
 * Why an arm with participants cannot be deleted, saying how many of them a dry run simulated and
 * that erasing those frees the arm.
 */
function assignedMessage(participants: number, simulated: number): string {
  const assigned = `${participants} ${participants === 1 ? "participant is" : "participants are"} assigned to this arm`;
  if (simulated === 0) return `${assigned}; it cannot be deleted.`;
  const real = participants - simulated;
  if (real === 0)
    return `${assigned}, ${participants === 1 ? "" : "all "}simulated by a dry run: erase the dry runs' participants to free it.`;
  return `${assigned}, ${simulated} of them simulated by a dry run; it cannot be deleted while ${real} real ${real === 1 ? "participant is" : "participants are"} assigned.`;
}

/** The columns of an arm whose change during a running study is recorded. */
const RECORDED_FIELDS = ["algorithm_feed", "algorithm_watch", "ui_feed", "ui_watch"] as const;

export interface GroupsServiceDeps extends ServiceDeps {
  readonly recommenders: RecommenderCatalog;
  /** True when a UI key (preset key, `none`, or a template id) can serve the page. */
  readonly uiFits: (key: string, page: "feed" | "watch") => Promise<boolean>;
  /** Called after a group's configuration changed (caches of it must go). */
  readonly onChange?: (groupId: string) => void;
}

export function createGroupsService(deps: GroupsServiceDeps) {
  const { db, newId, now, recommenders, uiFits, onChange } = deps;

  /** Group rules: known recommender keys that support their page (spec: Errors), known UI keys. */
  async function checkConfig(input: {
    algorithm_config?: SurfaceConfig;
    ui_config?: SurfaceConfig;
    recommender_params?: Record<string, unknown>;
  }): Promise<void> {
    if (input.algorithm_config) {
      for (const page of ["feed", "watch"] as const) {
        const key = input.algorithm_config[page];
        const rec = await recommenders.get(key);
        const field = `algorithm_config.${page}`;
        if (!rec)
          throw unprocessable("unknown_recommender", `No recommender with key "${key}".`, { field, key });
        if (!(page === "feed" ? rec.supports_feed : rec.supports_watch)) {
          throw unprocessable(
            "unsupported_surface",
            `Recommender "${key}" does not support the ${page} page.`,
            {
              field,
              key,
              page,
            },
          );
        }
      }
    }
    if (input.ui_config) {
      for (const page of ["feed", "watch"] as const) {
        const key = input.ui_config[page];
        if (!(await uiFits(key, page))) {
          throw unprocessable("unknown_ui", `No UI preset, or template of the ${page} page, "${key}".`, {
            field: `ui_config.${page}`,
            key,
          });
        }
      }
    }
    for (const key of Object.keys(input.recommender_params ?? {})) {
      if (!(await recommenders.get(key))) {
        throw unprocessable("unknown_recommender", `No recommender with key "${key}".`, {
          field: `recommender_params.${key}`,
          key,
        });
      }
    }
  }

  /** The arms with how many participants each has (the participants' owner counts them). */
  async function withCounts(rows: GroupRow[]): Promise<GroupRow[]> {
    const counts = await participantCountsByArm(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => ({
      ...r,
      participant_count: counts.get(r.id)?.participants ?? 0,
      simulated_participant_count: counts.get(r.id)?.simulated ?? 0,
    }));
  }

  async function get(id: string): Promise<Group> {
    const row = (await db("groups").where({ id }).first()) as GroupRow | undefined;
    if (!row) throw notFound("group", "arm");
    const [counted] = await withCounts([row]);
    return presentGroup(counted as GroupRow);
  }

  return {
    get,

    async create(experimentId: string, input: GroupCreate): Promise<Group> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      await checkConfig(input);
      const at = now();
      const row: GroupRow = {
        id: newId(),
        experiment_id: experimentId,
        name: input.name,
        weight: input.weight ?? 1,
        algorithm_feed: input.algorithm_config.feed,
        algorithm_watch: input.algorithm_config.watch,
        ui_feed: input.ui_config.feed,
        ui_watch: input.ui_config.watch,
        recommender_params: JSON.stringify(input.recommender_params ?? {}),
        cap: input.cap ?? null,
        paused: input.paused ?? false,
        created_at: at,
        updated_at: at,
      };
      await db("groups").insert(row);
      return presentGroup({
        ...row,
        recommender_params: input.recommender_params ?? {},
        participant_count: 0,
        simulated_participant_count: 0,
      });
    },

    async list(experimentId: string): Promise<Group[]> {
      if (!(await experimentExists(db, experimentId))) throw notFound("experiment");
      const rows = (await db("groups")
        .where({ experiment_id: experimentId })
        .orderBy("created_at", "asc")) as GroupRow[];
      return (await withCounts(rows)).map(presentGroup);
    },

    /**
     * Updates a group. A change of a running experiment's arm (its algorithm or UI) is recorded, with
     * who made it and when, so analyses can split the arm's data at the change.
     */
    async update(id: string, patch: GroupPatch, admin?: string): Promise<Group> {
      await checkConfig(patch);
      const changes: Record<string, unknown> = { updated_at: now() };
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.weight !== undefined) changes.weight = patch.weight;
      if (patch.algorithm_config) {
        changes.algorithm_feed = patch.algorithm_config.feed;
        changes.algorithm_watch = patch.algorithm_config.watch;
      }
      if (patch.ui_config) {
        changes.ui_feed = patch.ui_config.feed;
        changes.ui_watch = patch.ui_config.watch;
      }
      if (patch.recommender_params) changes.recommender_params = JSON.stringify(patch.recommender_params);
      if (patch.cap !== undefined) changes.cap = patch.cap;
      if (patch.paused !== undefined) changes.paused = patch.paused;
      await db.transaction(async (trx) => {
        const before = (await trx("groups as g")
          .join("experiments as e", "e.id", "g.experiment_id")
          .where("g.id", id)
          .forUpdate()
          .first("g.*", "e.status as experiment_status")) as
          | (GroupRow & { experiment_status: string })
          | undefined;
        if (!before) throw notFound("group", "arm");
        await trx("groups").where({ id }).update(changes);
        if (before.experiment_status !== "running") return;
        const recorded = RECORDED_FIELDS.filter(
          (f) => changes[f] !== undefined && changes[f] !== before[f],
        ).map((field) => ({
          id: newId(),
          experiment_id: before.experiment_id,
          group_id: id,
          group_name: (changes.name as string | undefined) ?? before.name,
          field,
          old_value: before[field],
          new_value: changes[field] as string,
          admin: admin ?? null,
          changed_at: changes.updated_at,
        }));
        if (recorded.length > 0) await trx("group_changes").insert(recorded);
      });
      onChange?.(id);
      return get(id);
    },

    /** The recorded changes of the experiment's running arms, oldest first. */
    async changes(experimentId: string): Promise<ArmChange[]> {
      await assertExperiment(db, experimentId);
      const rows = (await db("group_changes")
        .where({ experiment_id: experimentId })
        .orderBy("changed_at")
        .orderBy("id")) as (Omit<ArmChange, "changed_at"> & { changed_at: Date })[];
      return rows.map((r) => ({
        group_id: r.group_id,
        group_name: r.group_name,
        field: r.field,
        old_value: r.old_value,
        new_value: r.new_value,
        admin: r.admin,
        changed_at: iso(r.changed_at),
      }));
    },

    /** A group with participants cannot go: they would lose their arm mid-study. */
    async remove(id: string): Promise<void> {
      await db.transaction(async (trx) => {
        const group = await trx("groups").where({ id }).forUpdate().first("id");
        if (!group) throw notFound("group", "arm");
        const { participants, simulated } = (await participantCountsByArm(trx, [id])).get(id) ?? {
          participants: 0,
          simulated: 0,
        };
        if (participants > 0)
          throw conflict("group_has_participants", assignedMessage(participants, simulated), {
            participants,
            simulated,
          });
        await trx("groups").where({ id }).delete();
      });
    },
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
