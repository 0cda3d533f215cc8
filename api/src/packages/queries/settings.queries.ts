// The installation's settings (`app_settings`), for the api's other features: they call these, never
// its SQL (docs/architecture.md, "Tables and their owners"). This folder imports no feature.
import type { Knex } from "knex";

/** A setting's row; undefined when it was never set. */
export async function settingOf<T>(db: Knex, key: string): Promise<{ value: T } | undefined> {
  return db("app_settings").where({ key }).first<{ value: T } | undefined>();
}

/** Sets a setting unless it is set already (the first writer wins). */
export async function setSettingOnce(db: Knex, key: string, value: unknown, at: Date): Promise<void> {
  await db("app_settings")
    .insert({ key, value: JSON.stringify(value), updated_at: at })
    .onConflict("key")
    .ignore();
}
