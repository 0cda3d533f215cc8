// Plausibility of client clocks: no imports, so that the export worker loads only this.

/**
 * A client time later than its arrival by more than this is in the future, and earlier than the
 * study's creation by more than this is before it (clocks a minute off are common).
 */
const FUTURE_TOLERANCE_MS = 60_000;
/** A client time earlier than its arrival by more than this is implausible (the runtime sends within minutes). */
const STALE_TOLERANCE_MS = 24 * 3_600_000;

/** A client time that cannot be right: in the future of its arrival, or a day or more before it. */
export function implausibleTime(offsetMs: number): boolean {
  return offsetMs < -FUTURE_TOLERANCE_MS || offsetMs > STALE_TOLERANCE_MS;
}

/** Why an event's client time cannot be right, or null (docs/events.md, "Client clocks"). */
export function timestampFlag(
  clientMs: number,
  receivedMs: number,
  studyCreatedMs: number,
): "future" | "before_study" | "stale" | null {
  if (clientMs - receivedMs > FUTURE_TOLERANCE_MS) return "future";
  if (clientMs < studyCreatedMs - FUTURE_TOLERANCE_MS) return "before_study";
  if (receivedMs - clientMs > STALE_TOLERANCE_MS) return "stale";
  return null;
}
