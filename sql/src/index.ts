export * from "./linked-db.ts";
export * from "./open-db.ts";
export * from "./pglite-proxy.ts";
export * from "./sql.ts";
