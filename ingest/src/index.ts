export * from "./log/embedded.ts";
export * from "./log/event-log.ts";
export * from "./log/kafka.ts";
export * from "./stamp.ts";
export * from "./validate.ts";
