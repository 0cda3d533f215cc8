import type { Locator, Page } from "playwright-core";
import type { Act } from "./browser-page.ts";

/** Cards a 1280 x 800 page shows without scrolling. */
const CARDS_ABOVE_FOLD = 4;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The video ids of the cards a list shows, in order. */
export async function cardIds(cards: Locator): Promise<string[]> {
  return (await cards.evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""))).map((h) =>
    h.slice("/watch/".length),
  );
}

/** Down a list as the model chose: the pointer moves, the page scrolls, cards are hovered. */
export async function browseList(
  page: Page,
  cards: Locator,
  scrolledTo: number | null,
  hovers: readonly { position: number; durationMs: number }[],
  act: Act,
): Promise<void> {
  for (let i = 0; i < 6; i++) await page.mouse.move(200 + i * 90, 200 + (i % 3) * 60, { steps: 4 });
  act("move_pointer");
  if ((scrolledTo ?? 0) >= CARDS_ABOVE_FOLD) {
    await page.mouse.wheel(0, 700);
    await sleep(600);
    // A page whose cards all fit does not scroll, and sends no SCROLL.
    const moved = await page.evaluate(() => window.scrollY > 0);
    await page.mouse.wheel(0, -700);
    if (moved) act("scroll");
  }
  for (const h of hovers) {
    const card = cards.nth(h.position);
    if (!(await card.isVisible())) continue;
    await card.hover();
    await sleep(Math.min(1200, Math.max(150, h.durationMs)));
    await page.mouse.move(5, 5);
    act("hover_card");
  }
  // VIEWPORT_VISIBILITY is reported every 3 s while cards are in view.
  await sleep(3300);
  act("stay_on_cards");
}
