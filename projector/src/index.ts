export * from "./apply/apply.ts";
export * from "./apply/dead-letters.ts";
export * from "./apply/errors.ts";
export * from "./apply/plan.ts";
export * from "./apply/redrive.ts";
export * from "./consumer/batch-applier.ts";
export * from "./consumer/batch-thread.ts";
export * from "./consumer/checkpoints.ts";
export * from "./consumer/progress.ts";
export * from "./consumer/projector.ts";
export * from "./erasure/erase.ts";
export * from "./ops.ts";
export * from "./read-model.ts";
export * from "./read-models/index.ts";
export * from "./replay/rebuilds.ts";
export * from "./replay/replay.ts";

import { consumerMigrations } from "./consumer/checkpoints.ts";
import { READ_MODEL_MIGRATIONS } from "./read-models/index.ts";
import { rebuildMigrations } from "./replay/rebuilds.ts";

/** The projector's schema changes: its consumer tables and rebuild requests, then every read model's. */
export const PROJECTOR_MIGRATIONS = [...consumerMigrations, ...rebuildMigrations, ...READ_MODEL_MIGRATIONS];
