import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { EventBatchResult, JourneyAction } from "@feedlab/schemas";
import type AxeCore from "axe-core";
import type { BrowserContext, Page, Request } from "playwright-core";
import { type JourneyRecord, problem } from "./journey.ts";

/** axe-core's browser build, read once from the package (nothing is fetched at run time). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Where on the participant pages a path is, as a report names it. */
export function pageOf(url: string): string {
  const path = new URL(url, "http://x").pathname;
  if (path === "/") return "feed";
  if (path.startsWith("/watch/")) return "watch";
  return path;
}

/**
 * What a browser participant's pages sent and met, followed from outside the pages: the event batches
 * and what the server acknowledged of them (the ids the store must then hold), page errors, layouts
 * that fell back, server errors, and the completion redirect, which never leaves the machine.
 */
export class PageWatch {
  readonly acknowledged: string[] = [];
  /** The log positions the acknowledged batches were given. */
  readonly positions: string[] = [];
  readonly sentTypes = new Set<string>();
  /** The URL the study sent the participant to at the end (intercepted), if it did. */
  redirect: string | null = null;
  private readonly record: JourneyRecord;
  private readonly baseUrl: string;

  constructor(record: JourneyRecord, baseUrl: string) {
    this.record = record;
    this.baseUrl = baseUrl;
  }

  /** Follows a context: every page it opens, and the requests that leave the deployment. */
  async attach(context: BrowserContext): Promise<void> {
    const origin = new URL(this.baseUrl).origin;
    await context.route(
      (url) => url.origin !== origin,
      async (route) => {
        const req = route.request();
        if (req.isNavigationRequest()) this.redirect = req.url();
        await route.fulfill({ status: 200, contentType: "text/html", body: "<p>Left the study.</p>" });
      },
    );
    context.on("page", (page) => this.follow(page));
  }

  private follow(page: Page): void {
    page.on("pageerror", (err) =>
      problem(this.record, pageOf(page.url()), "page_error", `The page threw: ${err.message}`),
    );
    page.on("requestfinished", (req) => void this.finished(req));
    page.on("response", (res) => {
      if (res.status() >= 500)
        problem(
          this.record,
          pageOf(page.url()),
          "request_failed",
          `${res.request().method()} ${new URL(res.url()).pathname} answered ${res.status()}.`,
        );
    });
  }

  /** Moves what the server acknowledged so far into the participant's record. */
  drainInto(record: JourneyRecord): void {
    record.acknowledged.push(...this.acknowledged.splice(0));
    record.positions.push(...this.positions.splice(0));
  }

  private async finished(req: Request): Promise<void> {
    const path = new URL(req.url()).pathname;
    if (req.method() === "POST" && /^\/api\/v1\/ui-templates\/[^/]+\/render-errors$/.test(path)) {
      const body = req.postDataJSON() as { message?: string } | null;
      problem(
        this.record,
        pageOf(req.frame().url()),
        "layout_fallback",
        `The layout failed and the plain layout was shown instead: ${body?.message ?? "no message"}`,
      );
      return;
    }
    if (req.method() !== "POST" || path !== "/api/v1/events") return;
    const sent = (req.postDataJSON() as { events?: { event_id: string; event_type: string }[] } | null)
      ?.events;
    const res = await req.response().catch(() => null);
    if (!sent || !res || res.status() !== 202) return;
    const result = (await res.json().catch(() => null)) as EventBatchResult | null;
    const refused = new Set(result?.rejected.map((r) => r.index) ?? []);
    if (result?.position) this.positions.push(result.position);
    sent.forEach((e, i) => {
      this.sentTypes.add(e.event_type);
      if (!refused.has(i)) this.acknowledged.push(e.event_id);
    });
    for (const r of result?.rejected ?? [])
      problem(
        this.record,
        "events",
        "events_rejected",
        `The server refused a ${sent[r.index]?.event_type ?? "?"} event: ${r.message} (${r.code})`,
      );
  }
}

/** The WCAG 2.1 A and AA rules the page breaks, as problems (axe-core, run in the page). */
export async function checkAccessibility(page: Page, record: JourneyRecord): Promise<void> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  const violations = await page.evaluate(async (values) => {
    const { axe } = window as unknown as { axe: typeof AxeCore };
    const result = await axe.run(document, { runOnly: { type: "tag", values } });
    return result.violations.map((v) => ({ help: v.help, count: v.nodes.length }));
  }, WCAG_TAGS);
  for (const v of violations)
    problem(
      record,
      pageOf(page.url()),
      "accessibility",
      `${v.help} (${v.count} element${v.count === 1 ? "" : "s"})`,
    );
}

/** Marks what a participant did on the pages (the catalog's actions). */
export type Act = (...actions: JourneyAction[]) => void;
