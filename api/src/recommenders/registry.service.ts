import type {
  RecommenderCreate,
  RecommenderPatch,
  RecommenderUsage,
  RecommenderView,
} from "@feedlab/schemas";
import type { Knex } from "knex";
import type { Logger } from "pino";
import type { ChangeBus } from "../changes/change-bus.ts";
import { iso, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { armsUsing } from "../groups/queries/groups.queries.ts";
import { badRequest, conflict, notFound, unprocessable, validationFailed } from "../http/errors.ts";
import { BUILTIN_RECOMMENDERS, isBuiltinKey, type RecommenderRecord } from "./builtins.ts";
import type { RecommenderCatalog } from "./catalog.ts";
import { type AddressPolicy, createAddressPolicy } from "./external-http/addresses.ts";
import { checkConfig } from "./external-http/config.ts";
import { loggableUrl } from "./external-http/external-http.recommender.ts";
import { maskedConfig, storedHeaders, unmaskHeaders } from "./external-http/header-secrets.ts";
import type { RecommenderRow } from "./queries/recommenders.queries.ts";

/** Defaults the spec leaves open (documented in the OpenAPI descriptions and docs/recommenders.md). */
const REGISTRATION_DEFAULTS = Object.freeze({
  description: "",
  /** The spec: "The external services use the value external." */
  category: "external",
  /** A feed request always has a null current_video_id, so any service can take one. */
  supports_feed: true,
  /** Opt in: spec rule 6, only services that handle a current video should serve the watch page. */
  supports_watch: false,
});

/** Fields a PATCH may change on a built-in (spec rule 3). */
const BUILTIN_PATCHABLE = new Set(["label", "description", "category"]);

/** How long "no such key" is remembered before a lookup asks the database again. */
const MISS_TTL_MS = 1000;

const BUILTIN_BY_KEY = new Map(BUILTIN_RECOMMENDERS.map((r) => [r.key, r]));

function recordOf(key: string, row: RecommenderRow | null): RecommenderRecord | undefined {
  const builtin = BUILTIN_BY_KEY.get(key);
  if (builtin) {
    if (!row) return builtin;
    return {
      ...builtin,
      label: row.label,
      description: row.description,
      category: row.category,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  }
  if (row?.kind !== "external_http") return undefined;
  return {
    key: row.key,
    kind: "external_http",
    label: row.label,
    description: row.description,
    category: row.category,
    supports_feed: row.supports_feed,
    supports_watch: row.supports_watch,
    config: json<Record<string, unknown>>(row.config, {}),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export interface RegistryDeps extends ServiceDeps {
  readonly bus: ChangeBus;
  readonly log: Logger;
  /** Which addresses a registered URL may name (default: all but link-local and cloud metadata). */
  readonly addressPolicy?: AddressPolicy;
}

/**
 * 422 `blocked_address` for a URL whose host is a link-local or cloud metadata address (api.md
 * "Trust boundaries"). A name is checked when a call resolves it.
 */
function assertAllowedUrl(policy: AddressPolicy, url: string): void {
  const host = policy.blockedHost(url);
  if (host === null) return;
  throw unprocessable(
    "blocked_address",
    `${host} is a link-local or cloud metadata address: recommender calls never connect there.`,
    { field: "config.url", host },
  );
}

/**
 * The recommender registry (spec: "Recommender record (registry)", "Admin: recommenders"). Built-ins
 * are defined in code; registered services and the admin's texts for built-ins are rows of
 * `recommenders`. Each process keeps the records in memory: a change is applied at once on the
 * process that made it and announced on the change bus, so every other API process drops its copy
 * within milliseconds (better than the spec's "next lookup miss"); a key not in memory is looked up
 * once in the database (the spec's lookup miss), and an unknown key is remembered for 1 s.
 */
export function createRecommenderRegistry(deps: RegistryDeps) {
  const { db, now, bus, log } = deps;
  const policy = deps.addressPolicy ?? createAddressPolicy();
  /**
   * Per key: its row (null when the database had none at `at`) and the record built from it once,
   * so callers can tell a changed record by identity (the dispatcher rebuilds its instance then).
   */
  const known = new Map<
    string,
    { row: RecommenderRow | null; record: RecommenderRecord | undefined; at: number }
  >();
  const remember = (key: string, row: RecommenderRow | null, at = now().getTime()) => {
    const entry = { row, record: recordOf(key, row), at };
    known.set(key, entry);
    return entry;
  };

  /** Bumped by every change: a lookup that raced with one does not store what it read. */
  let generation = 0;
  bus.subscribe((change) => {
    if (change.type === "recommender") {
      generation++;
      known.delete(change.key);
    } else if (change.type === "resync") {
      generation++;
      known.clear();
    }
  });

  async function lookup(key: string): Promise<RecommenderRecord | undefined> {
    const before = generation;
    const row = (await db("recommenders").where({ key }).first()) as RecommenderRow | undefined;
    return before === generation ? remember(key, row ?? null).record : recordOf(key, row ?? null);
  }

  async function usage(keys: readonly string[] | null): Promise<Map<string, RecommenderUsage[]>> {
    const rows = await armsUsing(db, "algorithm", keys);
    const out = new Map<string, RecommenderUsage[]>();
    for (const r of rows) {
      for (const key of new Set([r.feed, r.watch])) {
        const pages: ("feed" | "watch")[] = [];
        if (r.feed === key) pages.push("feed");
        if (r.watch === key) pages.push("watch");
        const list = out.get(key) ?? [];
        list.push({
          group_id: r.group_id,
          group_name: r.group_name,
          experiment_id: r.experiment_id,
          experiment_name: r.experiment_name,
          pages,
        });
        out.set(key, list);
      }
    }
    return out;
  }

  /** A record as answers show it: header values masked (write-only). */
  const view = (record: RecommenderRecord, used: RecommenderUsage[] = []): RecommenderView => ({
    ...record,
    config: maskedConfig(record.config),
    used_by: used,
    used_elsewhere: 0,
  });

  async function viewOf(key: string, trx: Knex = db): Promise<RecommenderView> {
    const row = (await trx("recommenders").where({ key }).first()) as RecommenderRow | undefined;
    const record = recordOf(key, row ?? null);
    if (!record) throw notFound("recommender");
    return view(record, (await usage([key])).get(key));
  }

  /** Applies a stored change here and announces it to the other processes. */
  async function changed(key: string, row: RecommenderRow | null): Promise<void> {
    await bus.publish({ type: "recommender", key });
    remember(key, row);
  }

  const catalog: RecommenderCatalog = {
    async get(key) {
      const entry = known.get(key);
      if (entry && (entry.row !== null || now().getTime() - entry.at < MISS_TTL_MS)) return entry.record;
      return lookup(key);
    },
  };

  return {
    ...catalog,

    /** Loads every row into memory (at start; lookups fill in later). */
    async load(): Promise<void> {
      const rows = (await db("recommenders").select("*")) as RecommenderRow[];
      const at = now().getTime();
      const keys = new Set(rows.map((r) => r.key));
      for (const r of rows) remember(r.key, r, at);
      // Built-ins without a row need no lookups until a change says otherwise.
      for (const b of BUILTIN_RECOMMENDERS)
        if (!keys.has(b.key)) remember(b.key, null, Number.POSITIVE_INFINITY);
    },

    /** Built-ins first (in the spec's order), then registered services by key; each with the groups using it. */
    async list(): Promise<RecommenderView[]> {
      const rows = (await db("recommenders").select("*").orderBy("key")) as RecommenderRow[];
      const byKey = new Map(rows.map((r) => [r.key, r]));
      const used = await usage(null);
      const records = [
        ...BUILTIN_RECOMMENDERS.map((b) => recordOf(b.key, byKey.get(b.key) ?? null)),
        ...rows.filter((r) => !isBuiltinKey(r.key)).map((r) => recordOf(r.key, r)),
      ].filter((r): r is RecommenderRecord => r !== undefined);
      return records.map((r) => view(r, used.get(r.key)));
    },

    read: (key: string) => viewOf(key),

    /** The URL's host when it is an address calls never connect to (see `AddressPolicy`), else null. */
    blockedHost: (url: string): string | null => policy.blockedHost(url),

    /** Registers an external_http recommender: usable at once here, and on every process within 1 s. */
    async register(input: RecommenderCreate): Promise<RecommenderView> {
      if (isBuiltinKey(input.key)) {
        throw conflict("recommender_exists", `"${input.key}" is a built-in recommender.`, {
          field: "key",
          key: input.key,
        });
      }
      const unmasked = unmaskHeaders(input.config.headers, {});
      if (!unmasked.ok) throw validationFailed(unmasked.problems);
      const checked = checkConfig(input.config);
      if (!checked.ok) throw validationFailed(checked.problems);
      assertAllowedUrl(policy, checked.config.url);
      const at = now();
      const inserted = (await db("recommenders")
        .insert({
          key: input.key,
          kind: "external_http",
          label: input.label,
          description: input.description ?? REGISTRATION_DEFAULTS.description,
          category: input.category ?? REGISTRATION_DEFAULTS.category,
          supports_feed: input.supports_feed ?? REGISTRATION_DEFAULTS.supports_feed,
          supports_watch: input.supports_watch ?? REGISTRATION_DEFAULTS.supports_watch,
          config: JSON.stringify(checked.config),
          created_at: at,
          updated_at: at,
        })
        .onConflict("key")
        .ignore()
        .returning("*")) as RecommenderRow[];
      const row = inserted[0];
      if (!row) {
        throw conflict("recommender_exists", `A recommender with key "${input.key}" already exists.`, {
          field: "key",
          key: input.key,
        });
      }
      await changed(row.key, row);
      log.info({ recommender: row.key, url: loggableUrl(checked.config.url) }, "recommender registered");
      return view(recordOf(row.key, row) as RecommenderRecord);
    },

    /**
     * Partial update. key and kind never change (a value equal to the current one is accepted).
     * Built-ins take label, description and category only: anything else is 400 builtin_immutable.
     * A config PATCH is merged into the stored config and checked like a registration.
     */
    async update(key: string, patch: RecommenderPatch): Promise<RecommenderView> {
      const builtin = BUILTIN_BY_KEY.get(key);
      if (builtin) {
        const refused = Object.keys(patch).filter((f) => !BUILTIN_PATCHABLE.has(f));
        if (refused.length > 0) {
          throw badRequest(
            "builtin_immutable",
            `Built-in recommenders accept only label, description and category (refused: ${refused.join(", ")}).`,
            { key, fields: refused, field: refused[0] },
          );
        }
        const at = now();
        const changes = {
          ...(patch.label !== undefined ? { label: patch.label } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.category !== undefined ? { category: patch.category } : {}),
          updated_at: at,
        };
        const [row] = (await db("recommenders")
          .insert({
            key,
            kind: "builtin",
            label: builtin.label,
            description: builtin.description,
            category: builtin.category,
            supports_feed: builtin.supports_feed,
            supports_watch: builtin.supports_watch,
            config: "{}",
            created_at: at,
            ...changes,
          })
          .onConflict("key")
          .merge(Object.keys(changes))
          .returning("*")) as RecommenderRow[];
        await changed(key, row ?? null);
        return viewOf(key);
      }

      const row = await db.transaction(async (trx) => {
        const current = (await trx("recommenders").where({ key }).forUpdate().first()) as
          | RecommenderRow
          | undefined;
        if (current?.kind !== "external_http") throw notFound("recommender");
        for (const field of ["key", "kind"] as const) {
          if (patch[field] !== undefined && patch[field] !== current[field]) {
            throw unprocessable("immutable_field", `${field} cannot change.`, {
              field,
              current: current[field],
            });
          }
        }
        const changes: Record<string, unknown> = { updated_at: now() };
        for (const f of ["label", "description", "category", "supports_feed", "supports_watch"] as const) {
          if (patch[f] !== undefined) changes[f] = patch[f];
        }
        if (patch.config !== undefined) {
          const stored = json<Record<string, unknown>>(current.config, {});
          const merged: Record<string, unknown> = { ...stored, ...patch.config };
          if (merged.body_template === null) delete merged.body_template;
          if ("headers" in patch.config) {
            const unmasked = unmaskHeaders(patch.config.headers, storedHeaders(stored));
            if (!unmasked.ok) throw validationFailed(unmasked.problems);
            merged.headers = unmasked.headers;
          }
          const checked = checkConfig(merged);
          if (!checked.ok) throw validationFailed(checked.problems);
          assertAllowedUrl(policy, checked.config.url);
          changes.config = JSON.stringify(checked.config);
        }
        const [updated] = (await trx("recommenders")
          .where({ key })
          .update(changes)
          .returning("*")) as RecommenderRow[];
        return updated ?? null;
      });
      await changed(key, row);
      return viewOf(key);
    },

    /**
     * Removes a registered recommender. Allowed while groups use it (spec rule 5): their next
     * request answers 503 recommender_unavailable until their algorithm_config changes.
     */
    async remove(key: string): Promise<void> {
      if (isBuiltinKey(key)) {
        throw badRequest("builtin_immutable", "Built-in recommenders cannot be deleted.", { key });
      }
      const n = await db("recommenders").where({ key, kind: "external_http" }).delete();
      if (n === 0) throw notFound("recommender");
      await changed(key, null);
      log.info({ recommender: key }, "recommender deleted");
    },
  };
}

export type RecommenderRegistry = ReturnType<typeof createRecommenderRegistry>;
