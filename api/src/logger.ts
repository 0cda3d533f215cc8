import pino, { type Logger } from "pino";
import type { LogLevel } from "./config.ts";

/** Paths never written to logs: credentials in headers and bodies. */
const REDACT = [
  "req.headers.cookie",
  "req.headers.authorization",
  "res.headers['set-cookie']",
  "*.password",
  "*.token",
  "password",
  "token",
];

/** JSON logs; human-readable lines with format "pretty", or "auto" on a terminal. */
export function createLogger(level: LogLevel, format: "json" | "pretty" | "auto" = "json"): Logger {
  const pretty = format === "pretty" || (format === "auto" && process.stdout.isTTY === true);
  return pino({
    level,
    redact: { paths: REDACT, censor: "[redacted]" },
    base: { pid: process.pid },
    ...(pretty
      ? { transport: { target: "pino-pretty", options: { translateTime: "SYS:HH:MM:ss", ignore: "pid" } } }
      : {}),
  });
}
