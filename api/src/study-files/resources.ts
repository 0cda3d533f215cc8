import { isDeepStrictEqual } from "node:util";
import {
  HEADER_VALUE_MASK,
  type RecommenderCreate,
  type StudyDocument,
  type UiTemplate,
  type Video,
  type VideoInput,
} from "@feedlab/schemas";
import type { Db } from "@feedlab/sql";
import { json } from "../db/present.ts";
import { armsUsing } from "../groups/queries/groups.queries.ts";
import { isBuiltinKey } from "../recommenders/builtins.ts";
import { checkConfig } from "../recommenders/external-http/config.ts";
import { sameOrigin, storedHeaders } from "../recommenders/external-http/header-secrets.ts";
import {
  externalRecommenderRow,
  type RecommenderRow,
  recommenderConfig,
} from "../recommenders/queries/recommenders.queries.ts";
import { templateIdsNamed } from "../ui/queries/templates.queries.ts";
import { poolsHolding, videoRowsByExternalIds } from "../videos/queries/videos.queries.ts";
import { presentVideo, type VideoRow } from "../videos/videos.service.ts";
import { emptyMetadata, headerEnvName, layoutOf, poolVideoOf } from "./export.ts";
import { resolveContent } from "./media.ts";
import type { StudyServices } from "./services.ts";
import { placeShared } from "./shared.ts";
import type { Ledger } from "./step.ts";

/** What applying a document works with: the console's services on the transaction, and the plan. */
export interface Run {
  readonly db: Db;
  readonly s: StudyServices;
  readonly ledger: Ledger;
  readonly doc: StudyDocument;
  readonly experimentId: string;
  /** The applying server's environment: header references are read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

type DocRecommender = NonNullable<StudyDocument["recommenders"]>[number];

/** `${NAME}`: a header value read from the applying server's environment. */
const ENV_REF = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * The only environment variables a study file may name (api.md "Trust boundaries"): a file from
 * elsewhere must not read the server's own settings (`DATABASE_URL`, `FEEDLAB_JOIN_SECRET`...) into a
 * header it then sends to a URL of its choosing.
 */
const SECRET_PREFIX = "FEEDLAB_SECRET_";

/** The stored URL and header values of a recommender key (none when it is not registered). */
async function storedOf(
  run: Run,
  key: string,
): Promise<{ url: string | null; headers: Record<string, string> }> {
  const row = await recommenderConfig(run.db, key);
  const config = json<{ url?: unknown }>(row?.config, {});
  return { url: typeof config.url === "string" ? config.url : null, headers: storedHeaders(config) };
}

/**
 * Header values with their environment references resolved. Only `FEEDLAB_SECRET_` names are read.
 * A variable this server does not set (or the mask `********`) keeps the value the recommender of
 * that key already sends here, as long as the document keeps its URL's origin (re-applying a study on
 * the server it came from needs no secret); a file that moves the key to another origin must bring
 * the secret, or the lab's token would follow it there. Anything else is a problem naming the header.
 */
async function resolveHeaders(
  run: Run,
  r: DocRecommender,
  path: string,
): Promise<Record<string, string> | null> {
  const stored = await storedOf(run, r.key);
  const keepsOrigin = stored.url !== null && sameOrigin(stored.url, r.config.url);
  const out: Record<string, string> = {};
  let ok = true;
  const problem = (header: string, message: string) => {
    run.ledger.problem(`${path}.config.headers.${header}`, message);
    ok = false;
  };
  for (const [header, value] of Object.entries(r.config.headers ?? {})) {
    const name = ENV_REF.exec(value)?.[1];
    const kept = keepsOrigin ? stored.headers[header] : undefined;
    const expected = headerEnvName(r.key, header);
    if (value === HEADER_VALUE_MASK) {
      if (kept !== undefined) out[header] = kept;
      else
        problem(
          header,
          `"${HEADER_VALUE_MASK}" keeps the value stored on this server, and there is none for this recommender at this URL's origin: write \${${expected}} and set that variable`,
        );
    } else if (name === undefined) out[header] = value;
    else if (!name.startsWith(SECRET_PREFIX))
      problem(
        header,
        `names the environment variable ${name}: a study file may read only variables whose names start with ${SECRET_PREFIX} (write \${${expected}} and set that variable)`,
      );
    else if (run.env[name] !== undefined) out[header] = run.env[name];
    else if (kept !== undefined) out[header] = kept;
    else if (stored.headers[header] !== undefined)
      problem(
        header,
        `needs the environment variable ${name}: the recommender's URL moves to another origin, so the value stored on this server is not sent there; set ${name} to the header's value and apply again`,
      );
    else
      problem(
        header,
        `needs the environment variable ${name}, which is not set on this server: set it to the header's value and apply again`,
      );
  }
  return ok ? out : null;
}

/** A registered recommender as a document places it: its row but for kind and times. */
type StoredRecommender = Omit<RecommenderRow, "kind" | "created_at" | "updated_at">;

/** The registered recommender of a key, as stored. */
const find = (run: Run, key: string) => externalRecommenderRow(run.db, key);

/** Elsewhere-usage: the first of `holders` (experiments by name) other than the study's, quoted. */
const otherExperiment = (
  run: Run,
  holders: readonly { readonly id: string; readonly name: string }[],
): string | null => {
  const other = holders.find((h) => h.id !== run.experimentId);
  return other ? `"${other.name}"` : null;
};

/** The document's external recommenders, registered or found; answers each document key's stored key. */
export async function applyRecommenders(run: Run): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  for (const [i, r] of (run.doc.recommenders ?? []).entries()) {
    const path = `recommenders[${i}]`;
    if (isBuiltinKey(r.key)) {
      run.ledger.problem(`${path}.key`, "is a built-in recommender: arms name it without listing it here");
      continue;
    }
    const blocked = run.s.registry.blockedHost(r.config.url);
    if (blocked !== null) {
      run.ledger.problem(
        `${path}.config.url`,
        `blocked_address: ${blocked} is a link-local or cloud metadata address, and recommender calls never connect there`,
      );
      continue;
    }
    const headers = await resolveHeaders(run, r, path);
    if (!headers) continue;
    const { body_template, ...rest } = r.config;
    const config = { ...rest, headers, ...(body_template ? { body_template } : {}) };
    const checked = checkConfig(config);
    const wanted = {
      label: r.label,
      description: r.description ?? "",
      category: r.category ?? "external",
      supports_feed: r.supports_feed ?? true,
      supports_watch: r.supports_watch ?? false,
      config: checked.ok ? checked.config : config,
    };
    const input = (key: string): RecommenderCreate => ({ key, kind: "external_http", ...wanted, config });
    const placed = await placeShared<StoredRecommender>(run.ledger, {
      resource: "recommender",
      name: r.key,
      path,
      copyName: (n) => `${r.key}-copy${n === 1 ? "" : `-${n}`}`.slice(0, 64),
      find: async (key) => {
        const row = await find(run, key);
        return row ? [row] : [];
      },
      usedElsewhere: async (v) =>
        otherExperiment(
          run,
          (await armsUsing(run.db, "algorithm", [v.key])).map((a) => ({
            id: a.experiment_id,
            name: a.experiment_name,
          })),
        ),
      same: (v) =>
        isDeepStrictEqual(
          { ...v, config: typeof v.config === "string" ? JSON.parse(v.config) : v.config, key: undefined },
          { ...wanted, key: undefined },
        ),
      create: async (key) => {
        await run.s.registry.register(input(key));
        return { key, ...wanted };
      },
      update: (v) =>
        run.s.registry.update(v.key, {
          ...wanted,
          config: { ...config, body_template: body_template ?? null },
        }),
      // The stored values, not the masked view: a changed header value is a change.
      read: async (v) => {
        const { used_by: _u, created_at: _c, updated_at: _up, ...view } = await run.s.registry.read(v.key);
        return { ...view, config: json(((await find(run, v.key)) ?? v).config, {}) };
      },
    });
    if (placed) keys.set(r.key, placed.key);
  }
  return keys;
}

/** The document's layouts, created or found; answers each layout name's template id. */
export async function applyLayouts(run: Run): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [i, l] of (run.doc.layouts ?? []).entries()) {
    const content = layoutOf({ ...l, source: l.source ?? null, tree: l.tree ?? null } as UiTemplate);
    const { name: _n, ...wanted } = content;
    const placed = await placeShared<UiTemplate>(run.ledger, {
      resource: "layout",
      name: l.name,
      path: `layouts[${i}]`,
      copyName: (n) => `${l.name} (copy${n === 1 ? "" : ` ${n}`})`,
      find: async (name) => {
        const ids = await templateIdsNamed(run.db, name);
        return Promise.all(ids.map((id) => run.s.templates.get(id)));
      },
      usedElsewhere: async (t) => {
        const other = t.used_by.find((u) => u.experiment_id !== run.experimentId);
        return other ? `"${other.experiment_name}"` : null;
      },
      same: (t) => isDeepStrictEqual(layoutOf(t, l.name), content),
      create: (name) => run.s.templates.create({ name, ...wanted }),
      update: (t) => run.s.templates.update(t.id, wanted),
      read: async (t) => layoutOf(await run.s.templates.get(t.id)),
    });
    if (placed) ids.set(l.name, placed.id);
  }
  return ids;
}

/** A video's metadata as the document writes it, whatever form the document gave it. */
function normalVideo(v: VideoInput): ReturnType<typeof poolVideoOf> {
  return poolVideoOf({
    ...emptyMetadata(),
    ...v,
    published_at: v.published_at ? new Date(v.published_at).toISOString() : null,
  } as Video);
}

/** Every metadata field, the ones the document leaves out emptied: the video becomes what it says. */
const fullPatch = ({ external_id: _e, ...v }: VideoInput) => ({ ...emptyMetadata(), ...v });

/** The stored videos of these external ids, read a thousand at a time. */
async function storedVideos(db: Db, externalIds: readonly string[]): Promise<Map<string, VideoRow>> {
  const out = new Map<string, VideoRow>();
  for (let i = 0; i < externalIds.length; i += 1000) {
    const rows = await videoRowsByExternalIds<VideoRow>(db, externalIds.slice(i, i + 1000));
    for (const r of rows) out.set(r.external_id, r);
  }
  return out;
}

/** Says once per file that the server lacks it. */
function tellMissing(run: Run, missing: readonly { sha256: string; fileName: string }[], told: Set<string>) {
  for (const m of missing) {
    if (told.has(m.sha256)) continue;
    told.add(m.sha256);
    run.ledger.add({
      resource: "media",
      name: m.fileName,
      action: "refused",
      code: "media_missing",
      reason: `This server does not hold ${m.fileName} (sha256 ${m.sha256.slice(0, 12)}…): apply with --media DIR, a folder holding it, or upload it first.`,
    });
  }
}

/**
 * The pool's videos, created or found, then the pool itself, in the document's order. The common
 * cases take a few statements for the whole pool: the stored videos are read together, those already
 * as the document says are left alone, and new ones are created in batches; a video that differs
 * goes through `placeShared`, one by one.
 */
export async function applyPool(run: Run): Promise<void> {
  const entries = run.doc.pool ?? [];
  const stored = await storedVideos(
    run.db,
    entries.map((e) => e.external_id),
  );
  const told = new Set<string>();
  const slots: (string | VideoInput | null)[] = [];
  const fresh: VideoInput[] = [];
  for (const [i, entry] of entries.entries()) {
    const row = stored.get(entry.external_id);
    const { video: v, missing } = await resolveContent(
      run.db,
      entry,
      row
        ? [row.url, row.thumbnail_url ?? "", ...json<{ url: string }[]>(row.captions, []).map((c) => c.url)]
        : [],
    );
    tellMissing(run, missing, told);
    if (missing.length > 0) {
      slots.push(null);
      continue;
    }
    const wanted = normalVideo(v);
    const what = { resource: "video" as const, name: v.external_id };
    if (!row) {
      fresh.push(v);
      slots.push(v);
      run.ledger.add({ ...what, action: "create" });
      continue;
    }
    if (isDeepStrictEqual(poolVideoOf(presentVideo(row)), wanted)) {
      slots.push(row.id);
      run.ledger.add({ ...what, action: "unchanged" });
      continue;
    }
    const placed = await placeShared<Video>(run.ledger, {
      ...what,
      path: `pool[${i}]`,
      copyName: (n) => `${v.external_id}-copy${n === 1 ? "" : `-${n}`}`,
      find: async (external_id) =>
        (await videoRowsByExternalIds<VideoRow>(run.db, [external_id])).map(presentVideo),
      usedElsewhere: async (video) => otherExperiment(run, await poolsHolding(run.db, video.id)),
      same: (video) => isDeepStrictEqual(poolVideoOf(video), { ...wanted, external_id: video.external_id }),
      create: async (external_id) => {
        const [made] = await run.s.videos.createMany([{ ...v, external_id }]);
        if (!made) throw new Error("a created video was not returned");
        return made;
      },
      update: (video) => run.s.videos.update(video.id, fullPatch(v)),
      read: async (video) => poolVideoOf(await run.s.videos.get(video.id)),
    });
    slots.push(placed?.id ?? null);
  }
  const made = new Map<string, string>();
  for (let i = 0; i < fresh.length; i += 1000) {
    const batch = fresh.slice(i, i + 1000);
    const videos = await run.ledger.attempt(
      { resource: "video", name: batch[0]?.external_id ?? "" },
      "pool",
      () => run.s.videos.createMany(batch),
    );
    for (const video of videos ?? []) made.set(video.external_id, video.id);
  }
  const ids = slots.flatMap((slot) => {
    const id = typeof slot === "string" ? slot : slot === null ? undefined : made.get(slot.external_id);
    return id === undefined ? [] : [id];
  });
  const current = await run.s.videos.getPool(run.experimentId);
  const what = { resource: "pool" as const, name: run.doc.name };
  if (isDeepStrictEqual(current, ids)) run.ledger.add({ ...what, action: "unchanged" });
  else if (await run.ledger.attempt(what, "pool", () => run.s.videos.setPool(run.experimentId, ids)))
    run.ledger.add({ ...what, action: current.length === 0 ? "create" : "update", fields: ["videos"] });
}
