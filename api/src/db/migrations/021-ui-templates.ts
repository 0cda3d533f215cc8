import type { Knex } from "knex";

/**
 * Researcher-authored participant layouts (api.md, UI templates): a TSX module (`code`, stored with
 * the module the server compiled from it) or a tree of blocks (`blocks`), for one page. `version`
 * grows with each change of source or tree; events stamp `<id>@<version>`. Groups name a template by
 * its id in `ui_feed` / `ui_watch`.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable("ui_templates", (t) => {
    t.uuid("id").primary();
    t.string("name", 255).notNullable();
    t.string("page", 10).notNullable();
    t.string("template_type", 10).notNullable();
    t.text("source");
    t.jsonb("tree");
    // The module participants load: compiled from `source` at save time by the same compiler the
    // console's editor runs.
    t.text("compiled");
    t.integer("version").notNullable().defaultTo(1);
    // The last error a participant's browser reported while rendering it: {at, message, version}.
    t.jsonb("last_render_error");
    t.timestamp("created_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
    t.timestamp("updated_at", { useTz: true }).notNullable().defaultTo(db.fn.now());
  });
  await db.raw(
    "ALTER TABLE ui_templates ADD CONSTRAINT ui_templates_page_check CHECK (page IN ('feed','watch'))",
  );
  await db.raw(
    "ALTER TABLE ui_templates ADD CONSTRAINT ui_templates_type_check CHECK (template_type IN ('code','blocks'))",
  );
  await db.raw(
    `ALTER TABLE ui_templates ADD CONSTRAINT ui_templates_content_check CHECK (
       (template_type = 'code' AND source IS NOT NULL AND compiled IS NOT NULL) OR
       (template_type = 'blocks' AND tree IS NOT NULL))`,
  );
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists("ui_templates");
}
