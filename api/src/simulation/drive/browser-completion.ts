import { setTimeout as sleep } from "node:timers/promises";
import type { Me } from "@feedlab/schemas";
import type { BrowserContext, Page } from "playwright-core";
import { type JourneyRecord, meAfter, recordCompletion } from "./journey.ts";

/** A video card on the participant pages: a link to its watch page. */
export const CARD_SELECTOR = 'a[href^="/watch/"]';

/** How long a visit waits for its first batch to be acknowledged (the normal buffer flushes within 5 s). */
const FIRST_BATCH_MS = 12_000;

/**
 * Whether this visit finished the study (api.md: a session counts once the server received an event
 * of it): /me read after the page's first acknowledged batch. When it did, waits for the page to show
 * the completion instead of the feed.
 */
export async function finishedByThisVisit(
  page: Page,
  lastPosition: () => string | undefined,
): Promise<boolean> {
  const until = Date.now() + FIRST_BATCH_MS;
  let position = lastPosition();
  while (position === undefined && Date.now() < until) {
    await sleep(250);
    position = lastPosition();
  }
  if (position === undefined) return false;
  const me = await page.request.get(`/api/v1/me?after=${encodeURIComponent(position)}`);
  if (!me.ok() || ((await me.json()) as Me).status !== "finished") return false;
  await page
    .locator(CARD_SELECTOR)
    .first()
    .waitFor({ state: "detached", timeout: FIRST_BATCH_MS })
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
