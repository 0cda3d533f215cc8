import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { launchBrowser, saveScreenshot } from "./browser.ts";

const PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Harness check</title></head>
  <body>
    <button type="button" onclick="document.querySelector('output').textContent = 'Clicked'">Say hello</button>
    <output>Waiting</output>
  </body>
</html>`;

describe("launchBrowser", () => {
  let server: Server;
  let baseUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    });
    // listen(0): an in-process server reads its port back, so there is no window for a port race.
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  test("shows the result of a click on a page served from localhost", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(baseUrl);

      await page.getByRole("button", { name: "Say hello" }).click();

      await expect.poll(() => page.getByRole("status").textContent()).toBe("Clicked");
      const screenshot = await saveScreenshot(page, "harness browser click");
      expect(screenshot).toMatch(/test-results\/harness-browser-click\.png$/);
    } finally {
      await page.close();
    }
  });
});
