import type { Knex } from "knex";

/** A video's caption tracks: `[{lang, url, label?}]` (WebVTT files, api.md "Media"). */
export async function up(db: Knex): Promise<void> {
  await db.raw(`alter table videos add column captions jsonb not null default '[]'::jsonb`);
}

export async function down(db: Knex): Promise<void> {
  await db.raw("alter table videos drop column if exists captions");
}
