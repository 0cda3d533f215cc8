import { setTimeout as sleep } from "node:timers/promises";
import type { Me } from "@feedlab/schemas";
import type { BrowserContext, Page } from "playwright-core";
import { type JourneyRecord, meAfter, recordCompletion } from "./journey.ts";

/** A video card on the participant pages: a link to its watch page. */
export const CARD_SELECTOR = 'a[href^="/watch/"]';

/**
 * How long a visit waits to be counted: its first batch leaves within 5 s (the normal buffer), then
 * the projection takes it in.
 */
const COUNTED_WITHIN_MS = 20_000;

/**
 * Whether visit `number` finished the study (api.md: a session counts once the server received an
 * event of it): /me read after the page's acknowledged batches until it counts this visit (the
 * projection may lag behind a busy machine). When it did, waits for the page to show the completion
 * instead of the feed.
 */
export async function finishedByThisVisit(
  page: Page,
  number: number,
  lastPosition: () => string | undefined,
): Promise<boolean> {
  const until = Date.now() + COUNTED_WITHIN_MS;
  for (;;) {
    const position = lastPosition();
    if (position !== undefined) {
      const me = await page.request.get(`/api/v1/me?after=${encodeURIComponent(position)}`);
      const body = me.ok() ? ((await me.json()) as Me) : null;
      if (body?.status === "finished") break;
      if (body === null || body.progress.sessions >= number) return false;
    }
    if (Date.now() > until) return false;
    await sleep(500);
  }
  await page
    .locator(CARD_SELECTOR)
    .first()
    .waitFor({ state: "detached", timeout: COUNTED_WITHIN_MS })
    .catch(() => {});
  return true;
}

/** Where the study left the participant: finished or not, and the completion link filled. */
export async function completion(
  context: BrowserContext,
  baseUrl: string,
  record: JourneyRecord,
): Promise<void> {
  const me = await context.request.get(`${baseUrl}${meAfter(record)}`);
  if (me.ok()) recordCompletion(record, (await me.json()) as Me);
}
