export * from "./apply.ts";
export * from "./ops.ts";
export * from "./progress.ts";
export * from "./projections/index.ts";
export * from "./projector.ts";
export * from "./records.ts";
export * from "./replay.ts";
