export * from "./apply.ts";
export * from "./checkpoints.ts";
export * from "./erase.ts";
export * from "./ops.ts";
export * from "./progress.ts";
export * from "./projector.ts";
export * from "./read-model.ts";
export * from "./read-models/index.ts";
export * from "./rebuild-requests.ts";
export * from "./rebuilds.ts";
export * from "./replay.ts";

import { consumerMigrations } from "./checkpoints.ts";
import { READ_MODEL_MIGRATIONS } from "./read-models/index.ts";
import { rebuildMigrations } from "./rebuild-requests.ts";

/** The projector's schema changes: its consumer tables and rebuild requests, then every read model's. */
export const PROJECTOR_MIGRATIONS = [...consumerMigrations, ...rebuildMigrations, ...READ_MODEL_MIGRATIONS];
export * from "./redrive.ts";
