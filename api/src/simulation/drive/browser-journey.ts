import type { Me } from "@feedlab/schemas";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import type { Card } from "../browse.ts";
import { CARD_SELECTOR as CARD, completion, finishedByThisVisit } from "./browser-completion.ts";
import { browseList, cardIds } from "./browser-lists.ts";
import { type Act, checkAccessibility, PageWatch } from "./browser-page.ts";
import { waitForEnded, waitForPlayed, waitForTime } from "./browser-player.ts";
import { answerSurveys } from "./browser-surveys.ts";
import { FEED_LOOKS } from "./http-journey.ts";
import {
  emptyIsProblem,
  type Journey,
  type JourneyInput,
  type JourneyRecord,
  meAfter,
  newRecord,
  problem,
} from "./journey.ts";
import { awaitWindow, leaveBy, plannedSessions } from "./schedule.ts";

/** Video metadata by id: what the model judges a card by (a card on the page shows only its link). */
export type PoolIndex = ReadonlyMap<string, Card["video"]>;

/** Longest a page may take to show its cards. */
const CARDS_TIMEOUT_MS = 20_000;
/** Real seconds of playback per video at most: enough for the 1 s and 5 s marks and one progress event. */
const PLAY_CAP_S = 6.5;
/** Videos per session at most (keeps a dry run in minutes). */
const MAX_VIDEOS_PER_SESSION = 2;

/** What the built-in feed and related lists show when they have no card. */
const EMPTY_LIST = /There are no videos to show right now|The videos could not be loaded/;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One simulated participant's study in headless Chromium, through the real participant pages (issue
 * 36): consent on the study page, surveys in their dialogs, the feed (pointer, scroll, hovers, the card
 * the model picks), the watch page (playback with pauses, seeks, the player's volume and rate, like or
 * dislike, a related video or back), each session in a fresh tab, and the completion. The pages emit
 * the events; the journey records which catalog actions it performed, so the report can tell which
 * event types should have arrived. Time is compressed: a video plays a few real seconds at most. With
 * a schedule, each later session waits for its window (`awaitWindow`) and opens in a new tab, which
 * begins a new session.
 */
export function createBrowserJourney(
  browser: Browser,
  baseUrl: string,
  token: string,
  pool: PoolIndex,
  input: JourneyInput,
): Journey {
  const record = newRecord(input.participant);
  const act: Act = (...actions) => {
    for (const a of actions) record.actions.add(a);
  };
  const watch = new PageWatch(record, baseUrl);
  let context: BrowserContext | null = null;
  let going = true;
  const stopped = (err: Error) => {
    problem(
      record,
      "journey",
      "page_error",
      `The participant could not go on: ${err.message.split("\n")[0]}`,
    );
    going = false;
  };

  return {
    record,
    sessions: plannedSessions(input.model, input.design),
    get going() {
      return going;
    },
    async begin() {
      context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
      await context.addCookies([{ name: "feedlab_participant", value: token, url: baseUrl }]);
      await watch.attach(context);
    },
    async awaitWindow() {
      const requests = context?.request;
      if (!going || requests === undefined) return null;
      const outcome = await awaitWindow(record, input.model, input.deadline, async () => {
        const me = await requests.get(`${baseUrl}${meAfter(record)}`);
        return me.ok() ? ((await me.json()) as Me) : null;
      });
      going = outcome.going;
      return outcome.closesAt;
    },
    async visit(n) {
      if (!going || context === null) return;
      if (Date.now() > input.deadline) {
        record.outOfTime = true;
        going = false;
        return;
      }
      const page = await context.newPage();
      try {
        const lastPosition = () => watch.positions.at(-1);
        // With a schedule, the visit ends in time for the next window.
        const deadline = leaveBy(input.design.schedule, n, Date.now(), input.deadline);
        const visit = await session(
          page,
          baseUrl,
          pool,
          { ...input, deadline },
          record,
          n,
          act,
          lastPosition,
        );
        // Leaving the study's pages ends the session: the unload beacon of a page that showed the
        // feed or a video carries PAGE_EXIT and SESSION_END.
        await page.goto("about:blank").catch(() => {});
        if (visit.shown) act("leave_page", "end_session");
        await sleep(500);
        if (!visit.going || record.declined) going = false;
      } catch (err) {
        stopped(err as Error);
      } finally {
        await page.close().catch(() => {});
        watch.drainInto(record);
      }
    },
    async end() {
      try {
        if (context !== null && !record.declined) await completion(context, baseUrl, record);
      } catch (err) {
        stopped(err as Error);
      } finally {
        await context?.close().catch(() => {});
      }
      watch.drainInto(record);
    },
  };
}

/**
 * One visit in its own tab. `going`: false when the participant stops (declined, finished, or the pages
 * failed); `shown`: the feed's surface was on the page (it sends the session's and the page's events).
 */
async function session(
  page: Page,
  baseUrl: string,
  pool: PoolIndex,
  input: JourneyInput,
  record: JourneyRecord,
  number: number,
  act: Act,
  lastPosition: () => string | undefined,
): Promise<{ going: boolean; shown: boolean }> {
  const { model } = input;
  const asked = Date.now();
  await page.goto(`${baseUrl}/`);

  // The study page: consent first, when the study has a text.
  const agree = page.getByRole("button", { name: "I agree", exact: true });
  const cards = page.locator(CARD);
  const dialog = page.getByRole("dialog");
  // The built-in lists say so when they have nothing to show (or could not load it): no need to wait
  // out the timeout to know the feed is empty.
  const empty = page.getByText(EMPTY_LIST);
  // What stands before the feed, in the order the study page shows it: the consent, surveys.
  type Before = "consent" | "cards" | "survey" | "empty" | "nothing";
  let first: Before | null = null;
  let last: Before | null = null;
  let surveysFirst = 0;
  for (let step = 0; step < 8; step++) {
    const next = await Promise.race([
      agree.waitFor({ timeout: CARDS_TIMEOUT_MS }).then(() => "consent" as const),
      cards
        .first()
        .waitFor({ timeout: CARDS_TIMEOUT_MS })
        .then(() => "cards" as const),
      dialog.waitFor({ timeout: CARDS_TIMEOUT_MS }).then(() => "survey" as const),
      empty
        .first()
        .waitFor({ timeout: CARDS_TIMEOUT_MS })
        .then(() => "empty" as const),
    ]).catch(() => "nothing" as const);
    first ??= next;
    last = next;
    if (next === "consent") {
      if (!model.consents()) {
        await page.getByRole("button", { name: "I do not agree", exact: true }).click();
        record.declined = true;
        return { going: false, shown: false };
      }
      await agree.click();
      await agree.waitFor({ state: "hidden", timeout: CARDS_TIMEOUT_MS }).catch(() => {});
    } else if (next === "survey") {
      const answered = await answerSurveys(page, record, number, "start", input);
      if (answered === 0) break;
      surveysFirst += answered;
    } else break;
  }

  // The feed: already waited for when the page said it was empty or showed nothing in time.
  const shown =
    last === "empty" || last === "nothing"
      ? await cards.first().isVisible()
      : await cards
          .first()
          .waitFor({ timeout: CARDS_TIMEOUT_MS })
          .then(() => true)
          .catch(() => false);
  if (!shown) {
    // The study may have ended for them: the page shows the completion instead of the feed.
    const me = await page.request.get("/api/v1/me");
    if (me.ok() && ((await me.json()) as Me).status === "finished") return { going: false, shown: false };
    if (emptyIsProblem(record, input.design))
      problem(record, "feed", "empty_feed", "The feed showed no videos.");
    return { going: true, shown: false };
  }
  // The visit that reaches the completion rule counts once its first events arrive: the page then
  // turns into the completion page by itself, and the participant is done.
  if (
    number >= model.sessionsNeeded(input.design.completion) &&
    (await finishedByThisVisit(page, number, lastPosition))
  )
    return { going: false, shown: true };
  // The time to the first card, when nothing (consent, a survey) stood between the page and it.
  if (first !== "consent" && surveysFirst === 0) record.firstCardMs.push(Date.now() - asked);
  act("start_session", "open_page", "load_feed", "see_card");
  record.feedPages += 1;
  if (number === 1) await checkAccessibility(page, record);
  let videos = 0;
  let looks = 0;
  for (;;) {
    looks += 1;
    const ids = await cardIds(cards);
    const choice = model.chooseFromFeed(
      ids.flatMap((id, position) => {
        const video = pool.get(id);
        return video ? [{ video, position }] : [];
      }),
      videos === 0 && looks >= FEED_LOOKS,
    );
    await browseList(page, cards, choice.scrolledTo, choice.hovers, act);
    if (videos >= MAX_VIDEOS_PER_SESSION || Date.now() > input.deadline) return { going: true, shown: true };
    if (choice.click === null) {
      if (videos > 0 || looks >= FEED_LOOKS) return { going: true, shown: true };
      // Nothing caught their eye: they load the feed again.
      await page.reload();
      await cards.first().waitFor({ timeout: CARDS_TIMEOUT_MS });
      act("leave_page", "open_page", "load_feed", "see_card");
      record.feedPages += 1;
      continue;
    }
    await cards.nth(choice.click.position).click();
    await page.waitForURL(/\/watch\//, { timeout: CARDS_TIMEOUT_MS });
    act("click_feed_card", "follow_link", "leave_page");
    // Watch pages, then back to the feed.
    for (;;) {
      videos += 1;
      const next = await watchPage(page, pool, input, record, number, act, videos === 1 && number === 1);
      if (next === null || videos >= MAX_VIDEOS_PER_SESSION || Date.now() > input.deadline) break;
      await next.click();
      await page.waitForURL(/\/watch\//, { timeout: CARDS_TIMEOUT_MS });
      act("click_related_card", "follow_link", "leave_page");
    }
    if (Date.now() > input.deadline) return { going: true, shown: true };
    const back = Date.now();
    // Back to the feed by the page's Home link (after a related video, history's back is a watch page).
    const home = page.getByRole("link", { name: "Home", exact: true });
    if ((await home.count()) > 0) await home.first().click();
    else await page.goto(`${baseUrl}/`);
    await page.waitForURL(`${baseUrl}/`, { timeout: CARDS_TIMEOUT_MS });
    if (
      await cards
        .first()
        .waitFor({ timeout: CARDS_TIMEOUT_MS })
        .then(
          () => true,
          () => false,
        )
    )
      record.firstCardMs.push(Date.now() - back);
    record.feedPages += 1;
    act("follow_link", "leave_page", "open_page");
    await answerSurveys(page, record, number, "start", input);
    if (!(await cards.first().isVisible())) await cards.first().waitFor({ timeout: CARDS_TIMEOUT_MS });
  }
}

/** The watch page: playback as planned (compressed), then a related card to follow, or null for back. */
async function watchPage(
  page: Page,
  pool: PoolIndex,
  input: JourneyInput,
  record: JourneyRecord,
  session: number,
  act: Act,
  exerciseControls: boolean,
): Promise<Locator | null> {
  const id = new URL(page.url()).pathname.slice("/watch/".length);
  record.watched.add(id);
  act("open_page");
  const player = page.locator("video").first();
  const ready = await player
    .waitFor({ timeout: CARDS_TIMEOUT_MS })
    .then(() => true)
    .catch(() => false);
  if (!ready) {
    problem(record, "watch", "page_error", "The watch page showed no player.");
    return null;
  }
  act("open_video");
  const related = page.locator(`main ${CARD}, aside ${CARD}, [data-feedlab-surface="watch"] ${CARD}`);
  const hasRelated = await Promise.race([
    related
      .first()
      .waitFor({ timeout: 15_000 })
      .then(() => true),
    page
      .getByText(EMPTY_LIST)
      .first()
      .waitFor({ timeout: 15_000 })
      .then(() => false),
  ]).catch(() => false);
  if (hasRelated) act("load_related", "see_card");
  else if (emptyIsProblem(record, input.design, 1))
    problem(record, "watch", "empty_related", `The related list of ${id} was empty.`);
  if (session === 1 && exerciseControls) await checkAccessibility(page, record);

  const video = pool.get(id);
  const plan = video ? input.model.watch(video) : null;
  await player.evaluate((v: HTMLVideoElement) => (v.paused ? v.play().catch(() => {}) : undefined));
  const started = await waitForTime(player, 0.2, 15_000);
  if (!started) {
    problem(record, "watch", "page_error", `The video ${id} did not play.`);
    return null;
  }
  act("play");
  const stopAt = Math.min(plan?.stopAtSecond ?? PLAY_CAP_S, PLAY_CAP_S);
  for (const a of plan?.actions ?? []) {
    if (a.atSecond > stopAt) break;
    await waitForTime(player, a.atSecond, 10_000);
    if (a.kind === "pause") {
      await page.keyboard.press("k");
      await sleep(400);
      await page.keyboard.press("k");
      act("pause", "press_shortcut", "play");
    } else if (a.kind === "seek") {
      await player.evaluate((v: HTMLVideoElement, to: number) => {
        v.currentTime = Math.min(to, Math.max(0, v.duration - 1));
      }, a.toSecond);
      act("seek");
    } else {
      const button = page.getByRole("button", { name: a.kind === "like" ? "Like" : "Dislike", exact: true });
      if (await button.isVisible()) {
        await button.click();
        act(a.kind);
      }
    }
  }
  if (exerciseControls) {
    // The player's controls, so a dry run checks their events too (volume, then rate).
    await player.evaluate((v: HTMLVideoElement) => {
      v.volume = 0.5;
      v.playbackRate = 1.25;
    });
    act("change_volume", "change_rate");
  }
  const played = await waitForPlayed(player, Math.max(stopAt, 5.6), 15_000);
  if (played >= 1) act("play_1s");
  if (played >= 5) act("play_5s", "keep_playing");
  if (plan?.reachesEnd) {
    await player.evaluate((v: HTMLVideoElement) => {
      v.currentTime = Math.max(0, v.duration - 0.5);
    });
    if (await waitForEnded(player, 5000)) act("reach_end", "seek");
  }
  await player.evaluate((v: HTMLVideoElement) => v.pause());
  act("pause");

  const ids = hasRelated ? await cardIds(related) : [];
  const next = input.model.nextStep(
    ids.flatMap((rid, position) => {
      const v = pool.get(rid);
      return v ? [{ video: v, position }] : [];
    }),
  );
  if (next.kind === "related") return related.nth(next.choice.click.position);
  return null;
}
