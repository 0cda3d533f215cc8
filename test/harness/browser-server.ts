import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { chromiumLaunchOptions } from "./browser.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /**
     * The Chromium every browser file of the run shares (`launchBrowser()` connects to it): each file
     * gets its own connection and contexts, which close with it, without paying a browser's start.
     */
    browserEndpoint: string;
  }
}

/** Starts one headless Chromium for the e2e project's run and provides its endpoint; stops it after. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer(chromiumLaunchOptions());
  project.provide("browserEndpoint", server.wsEndpoint());
  return () => server.close();
}
