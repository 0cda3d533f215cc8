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

/**
 * JSON logs; human-readable lines with format "pretty", or "auto" on a terminal. On stdout, or on
 * stderr for commands whose stdout carries data (`feedlab tail`).
 */
export function createLogger(
  level: LogLevel,
  format: "json" | "pretty" | "auto" = "json",
  stream: "stdout" | "stderr" = "stdout",
): Logger {
  const fd = stream === "stdout" ? 1 : 2;
  const pretty = format === "pretty" || (format === "auto" && process[stream].isTTY === true);
  const options = { level, redact: { paths: REDACT, censor: "[redacted]" }, base: { pid: process.pid } };
  if (pretty)
    return pino({
      ...options,
      transport: {
        target: "pino-pretty",
        options: { translateTime: "SYS:HH:MM:ss", ignore: "pid", destination: fd },
      },
    });
  return fd === 1 ? pino(options) : pino(options, pino.destination(fd));
}
