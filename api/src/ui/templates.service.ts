import { isDeepStrictEqual } from "node:util";
import {
  isUuid,
  type ParticipantUiTemplate,
  type UiTemplate,
  type UiTemplateCreate,
  type UiTemplatePatch,
} from "@feedlab/schemas";
import type { BlockNode } from "@feedlab/schemas/ui/blocks/catalog.ts";
import { checkTree } from "@feedlab/schemas/ui/blocks/check-tree.ts";
import { treeToTsx } from "@feedlab/schemas/ui/blocks/tree-to-tsx.ts";
import { platformModulesOf } from "@feedlab/schemas/ui/compile.ts";
import { usesVisibleTo } from "../auth/members.ts";
import { iso, json } from "../db/present.ts";
import type { ServiceDeps } from "../deps.ts";
import { armRow, armsUsing } from "../groups/queries/groups.queries.ts";
import { conflict, notFound, unprocessable } from "../http/errors.ts";
import { compileTemplate } from "./compile.ts";
import { isKnownUiKey } from "./presets.ts";

interface TemplateRow {
  id: string;
  name: string;
  page: "feed" | "watch";
  template_type: "code" | "blocks";
  source: string | null;
  tree: unknown;
  compiled: string | null;
  version: number;
  last_render_error: unknown;
  created_at: Date;
  updated_at: Date;
}

interface Usage {
  group_id: string;
  group_name: string;
  experiment_id: string;
  experiment_name: string;
  template_id: string;
}

/** A refusal's details: the arms in experiments the account may see, the others counted. */
function usedByDetails(used: readonly Usage[], visible: readonly string[] | null) {
  const { named, elsewhere } = usesVisibleTo(used, visible, (u) => u.experiment_id);
  return { used_by: named.map(({ template_id: _t, ...u }) => u), used_elsewhere: elsewhere.length };
}

const present = (r: TemplateRow, usage: readonly Usage[]): UiTemplate => ({
  id: r.id,
  name: r.name,
  page: r.page,
  template_type: r.template_type,
  source: r.source,
  tree: json<Record<string, unknown> | null>(r.tree, null),
  version: Number(r.version),
  used_by: usage.filter((u) => u.template_id === r.id).map(({ template_id: _t, ...u }) => u),
  used_elsewhere: 0,
  last_render_error: json<UiTemplate["last_render_error"]>(r.last_render_error, null),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** The content a template stores, checked and compiled: its source and module, or its tree. */
async function contentOf(
  type: "code" | "blocks",
  page: "feed" | "watch",
  source: string | undefined | null,
  tree: Record<string, unknown> | undefined | null,
): Promise<{ source: string | null; compiled: string | null; tree: string | null }> {
  if (type === "blocks") {
    if (tree === undefined || tree === null) {
      throw unprocessable("missing_field", "A blocks template needs its tree.", { field: "tree" });
    }
    if (source !== undefined && source !== null) {
      throw unprocessable(
        "invalid_field",
        "A blocks template has no source: its code is exported from the tree.",
        {
          field: "source",
        },
      );
    }
    const problem = checkTree(tree, page);
    if (problem) {
      throw unprocessable("invalid_tree", `${problem.path}: ${problem.message}`, {
        field: "tree",
        path: problem.path,
      });
    }
    // Participants load the tree's exported TSX, compiled: the export renders exactly what they see.
    const result = await compileTemplate(treeToTsx(tree as unknown as BlockNode, page));
    if (!result.ok)
      throw new Error(`a checked block tree exported TSX that does not compile: ${JSON.stringify(result)}`);
    return { source: null, compiled: result.code, tree: JSON.stringify(tree) };
  }
  if (typeof source !== "string" || source.trim() === "") {
    throw unprocessable("missing_field", "A code template needs its TSX source.", { field: "source" });
  }
  if (tree !== undefined && tree !== null) {
    throw unprocessable("invalid_field", "A code template has no tree.", { field: "tree" });
  }
  const result = await compileTemplate(source);
  if (result.ok) return { source, compiled: result.code, tree: null };
  if (result.code === "compile_error") {
    const first = result.problems[0];
    throw unprocessable(
      "compile_error",
      first ? `Line ${first.line}, column ${first.column}: ${first.message}` : "The source does not compile.",
      result.problems,
    );
  }
  if (result.code === "unknown_import") {
    throw unprocessable(
      "unknown_import",
      `A template may import only from @feedlab/data, @feedlab/surfaces, @feedlab/blocks, react and react/jsx-runtime, not ${result.imports.map((i) => `"${i}"`).join(", ")}.`,
      { field: "source", imports: result.imports },
    );
  }
  throw unprocessable(
    "no_default_export",
    "The module has no default export: export the page component as default (export default function Page() {...}).",
    { field: "source" },
  );
}

/**
 * UI templates (api.md): researcher-authored layouts of one page. A code template is compiled on
 * every save, so what participants load always compiles; `version` grows with each change of its
 * source or tree. A template a group uses can neither be deleted nor moved to the other page.
 */
export function createTemplatesService({
  db,
  newId,
  now,
  onVersion,
}: ServiceDeps & {
  /** Called when a template's version grows (events stamp `<id>@<version>`: cached stamps go stale). */
  onVersion?: (templateId: string) => void;
}) {
  async function usage(ids?: readonly string[]): Promise<Usage[]> {
    const rows = await armsUsing(db, "ui", ids ?? null);
    return rows.flatMap(({ feed, watch, ...u }) =>
      [...new Set([feed, watch])].filter((k) => isUuid(k)).map((k) => ({ ...u, template_id: k })),
    );
  }

  async function row(id: string): Promise<TemplateRow> {
    if (!isUuid(id)) throw notFound("UI template");
    const r = (await db("ui_templates").where({ id }).first()) as TemplateRow | undefined;
    if (!r) throw notFound("UI template");
    return r;
  }

  return {
    async list(): Promise<UiTemplate[]> {
      const rows = (await db("ui_templates").orderBy("created_at", "desc").select("*")) as TemplateRow[];
      const used = await usage(rows.map((r) => r.id));
      return rows.map((r) => present(r, used));
    },

    async get(id: string): Promise<UiTemplate> {
      const r = await row(id);
      return present(r, await usage([id]));
    },

    async create(input: UiTemplateCreate): Promise<UiTemplate> {
      const content = await contentOf(input.template_type, input.page, input.source, input.tree);
      const at = now();
      const r: TemplateRow = {
        id: newId(),
        name: input.name.trim(),
        page: input.page,
        template_type: input.template_type,
        source: content.source,
        tree: content.tree,
        compiled: content.compiled,
        version: 1,
        last_render_error: null,
        created_at: at,
        updated_at: at,
      };
      await db("ui_templates").insert(r);
      return present(r, []);
    },

    async update(
      id: string,
      patch: UiTemplatePatch,
      visible: readonly string[] | null = null,
    ): Promise<UiTemplate> {
      const current = await row(id);
      const used = await usage([id]);
      if (patch.page !== undefined && patch.page !== current.page && used.length > 0) {
        throw conflict(
          "template_in_use",
          `Arms use this template for the ${current.page} page; assign them another UI before moving it to the ${patch.page} page.`,
          usedByDetails(used, visible),
        );
      }
      const type = patch.template_type ?? current.template_type;
      const page = patch.page ?? current.page;
      // A block tree's module depends on its page (a watch page passes the video), its version too.
      const contentChanged =
        patch.template_type !== undefined ||
        (patch.source !== undefined && patch.source !== current.source) ||
        (patch.tree !== undefined && !isDeepStrictEqual(patch.tree, json(current.tree, null))) ||
        (type === "blocks" && page !== current.page);
      const content = contentChanged
        ? await contentOf(
            type,
            page,
            patch.source ?? (type === current.template_type ? current.source : null),
            patch.tree ?? (type === current.template_type ? json(current.tree, null) : null),
          )
        : null;
      const changes = {
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(patch.page !== undefined ? { page: patch.page } : {}),
        ...(content ? { template_type: type, ...content, version: Number(current.version) + 1 } : {}),
        updated_at: now(),
      };
      const [updated] = (await db("ui_templates")
        .where({ id })
        .update(changes)
        .returning("*")) as TemplateRow[];
      if (content) onVersion?.(id);
      return present(updated ?? { ...current, ...changes }, used);
    },

    async remove(id: string, visible: readonly string[] | null = null): Promise<void> {
      await row(id);
      const used = await usage([id]);
      if (used.length > 0) {
        const details = usedByDetails(used, visible);
        const names = [
          ...details.used_by.map((u) => `"${u.group_name}" in "${u.experiment_name}"`),
          ...(details.used_elsewhere > 0
            ? [`${details.used_elsewhere} in other researchers' experiments`]
            : []),
        ];
        throw conflict(
          "template_in_use",
          `${used.length === 1 ? "An arm uses" : `${used.length} arms use`} this template (${names.join(", ")}); assign them another UI first.`,
          details,
        );
      }
      await db("ui_templates").where({ id }).delete();
    },

    /** True when `key` names a UI that can serve `page`: `none`, a preset, or a template of that page. */
    async fits(key: string, page: "feed" | "watch"): Promise<boolean> {
      if (isKnownUiKey(key)) return true;
      if (!isUuid(key)) return false;
      return Boolean(await db("ui_templates").where({ id: key, page }).first("id"));
    },

    /**
     * A template as a participant's browser needs it: only one their group uses (else 404, as for
     * any id they may not see).
     */
    async forParticipant(id: string, groupId: string): Promise<ParticipantUiTemplate> {
      const r = await usedBy(id, groupId);
      return {
        id: r.id,
        page: r.page,
        template_type: r.template_type,
        version: Number(r.version),
        module_url:
          r.compiled !== null ? `/api/v1/ui-templates/${r.id}/module.js?v=${Number(r.version)}` : null,
        platform_modules: r.compiled !== null ? platformModulesOf(r.compiled) : [],
        tree: json<Record<string, unknown> | null>(r.tree, null),
      };
    },

    /**
     * A template as standalone TSX: a blocks template's tree exported (the code track accepts it as it
     * is), a code template's own source.
     */
    async exportTsx(id: string): Promise<{ name: string; tsx: string }> {
      const r = await row(id);
      const tree = json<BlockNode | null>(r.tree, null);
      const tsx = r.template_type === "blocks" && tree ? treeToTsx(tree, r.page) : (r.source ?? "");
      return { name: r.name, tsx };
    },

    /** The compiled module of a template the participant's group uses. */
    async moduleFor(id: string, groupId: string): Promise<{ code: string; version: number }> {
      const r = await usedBy(id, groupId);
      if (r.compiled === null) throw notFound("UI template module");
      return { code: r.compiled, version: Number(r.version) };
    },

    /** Keeps the last render error a participant's browser reported, for the researcher to see. */
    async reportRenderError(id: string, groupId: string, report: { message: string; version: number }) {
      await usedBy(id, groupId);
      await db("ui_templates")
        .where({ id })
        .update({
          last_render_error: JSON.stringify({
            at: now().toISOString(),
            message: report.message.slice(0, 2000),
            version: report.version,
          }),
        });
    },
  };

  async function usedBy(id: string, groupId: string): Promise<TemplateRow> {
    const r = await row(id);
    const group = await armRow<{ ui_feed: string; ui_watch: string }>(db, groupId, "ui_feed", "ui_watch");
    if (!group || (group.ui_feed !== id && group.ui_watch !== id)) throw notFound("UI template");
    return r;
  }
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
