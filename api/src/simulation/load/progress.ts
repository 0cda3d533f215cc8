import type { LoadCounters } from "./protocol.ts";

/** Without a terminal, a progress line this often (a log a CI job keeps). */
const LINE_EVERY_MS = 5000;

const n = (x: number) => x.toLocaleString("en-US");

/** The live progress line of `feedlab simulate`: time, who joined, requests and their rate, errors, events. */
export function progressLine(c: LoadCounters, participants: number, durationS: number): string {
  const elapsed = Math.min(c.elapsedS, durationS);
  const rate = c.elapsedS > 0 ? c.requests / c.elapsedS : 0;
  const errors = [
    c.errors5xx > 0 ? `${n(c.errors5xx)} 5xx` : "",
    c.errors429 > 0 ? `${n(c.errors429)} 429` : "",
    c.errors4xx > 0 ? `${n(c.errors4xx)} 4xx` : "",
    c.errorsNetwork > 0 ? `${n(c.errorsNetwork)} no answer` : "",
  ].filter((e) => e !== "");
  return [
    `${Math.floor(elapsed)}/${durationS} s`,
    `${n(c.joined)}/${n(participants)} joined`,
    `${n(c.requests)} requests (${rate.toFixed(0)}/s)`,
    `${n(c.batches)} batches, ${n(c.eventsAcknowledged)} events acknowledged`,
    errors.length === 0 ? "no errors" : `errors: ${errors.join(", ")}`,
  ].join(" | ");
}

/**
 * Writes progress lines to a stream: on a terminal one line rewritten in place, otherwise a line
 * every few seconds. `done` ends the line on a terminal.
 */
export function progressWriter(stream: NodeJS.WriteStream) {
  const tty = stream.isTTY === true;
  let last = Number.NEGATIVE_INFINITY;
  let shown = false;
  return {
    update(line: string): void {
      if (tty) {
        stream.write(`\r\x1b[2K${line}`);
        shown = true;
      } else if (performance.now() - last >= LINE_EVERY_MS) {
        stream.write(`${line}\n`);
        last = performance.now();
      }
    },
    done(): void {
      if (tty && shown) stream.write("\n");
      shown = false;
    },
  };
}
