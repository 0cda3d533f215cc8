import { decodePosition } from "@feedlab/ingest";
import type { ProgressWatcher } from "@feedlab/projector";
import type { AppContext } from "./context.ts";
import { unprocessable } from "./errors.ts";

/**
 * Read-your-writes (api.md, `POST /api/v1/events`'s `position`): with `?after=TOKEN` (or
 * `X-Feedlab-After`), waits, at most `timeoutMs`, until the projections have passed that log
 * position; `X-Feedlab-Read-After` says whether they did. 422 `invalid_position` for a token the
 * events endpoint did not give.
 */
export async function readAfter(
  progress: ProgressWatcher,
  ctx: AppContext,
  token: string | undefined,
  timeoutMs: number,
): Promise<void> {
  const raw = token ?? ctx.get("X-Feedlab-After");
  if (!raw) return;
  const position = decodePosition(raw);
  if (!position)
    throw unprocessable("invalid_position", "`after` is not a position token from POST /api/v1/events.", {
      field: "after",
    });
  const reached = await progress.waitFor(position, timeoutMs);
  ctx.set("X-Feedlab-Read-After", reached ? "reached" : "timeout");
}
