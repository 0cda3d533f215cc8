import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type AxeCore from "axe-core";
import type { Page } from "playwright-core";
import { resizeTo, saveScreenshot } from "./browser.ts";

/** axe-core's browser build, read once from the package (nothing is fetched at run time). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One rule an axe run found broken, with the elements that break it. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/** WCAG 2.1 A and AA. */
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
/** axe's best practices, which hold the landmark and heading rules (one main at the top level, unique landmarks, an h1, headings in order). */
const BEST_PRACTICE_TAGS = ["best-practice"];

/**
 * Runs axe-core in the page (WCAG 2.1 A and AA rules) and returns what it finds broken, in a shape
 * that reads well in a failed assertion. `include` limits the check to one part of the page.
 */
export function axeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  return run(page, WCAG_TAGS, include);
}

/** Every rule axe has that applies: the WCAG rules and the best practices. */
export function allAxeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  return run(page, [...WCAG_TAGS, ...BEST_PRACTICE_TAGS], include);
}

async function run(page: Page, tags: string[], include: string | undefined): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol, which the pages' Content-Security-Policy does not block.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  return page.evaluate(
    async ([selector, values]) => {
      // The injected script's global, typed by axe-core's own declarations.
      const { axe } = window as unknown as { axe: typeof AxeCore };
      const result = await axe.run(selector ? { include: [selector] } : document, {
        runOnly: { type: "tag", values },
      });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact ?? null,
        help: v.help,
        targets: v.nodes.map((n) => n.target.join(" ")),
      }));
    },
    [include ?? null, tags] as const,
  );
}

/**
 * What axe finds broken at a desktop's width and at a phone's (390 x 844), with a screenshot of each
 * (`name`, `name-390`); the page is left at the desktop's size. The console's pages are checked at both.
 */
export async function violationsAtBothWidths(
  page: Page,
  name: string,
  desktop = { width: 1280, height: 900 },
): Promise<{ desktop: AxeViolation[]; phone: AxeViolation[] }> {
  const atDesktop = await axeViolations(page);
  await saveScreenshot(page, name);
  await resizeTo(page, { width: 390, height: 844 });
  const atPhone = await axeViolations(page);
  await saveScreenshot(page, `${name}-390`);
  await resizeTo(page, desktop);
  return { desktop: atDesktop, phone: atPhone };
}
