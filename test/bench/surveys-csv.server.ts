// Child process of the surveys-csv benchmark: the API alone, so its memory is measured without the
// benchmark's seeding and download. Reports its port, then, when asked, its peak memory.
import type { AddressInfo } from "node:net";
import { loadConfig } from "../../api/src/config.ts";
import { createLogger } from "../../api/src/logger.ts";
import { buildApp, closeServer, listen, openRuntime } from "../../api/src/main.ts";

const config = loadConfig({
  PORT: "0",
  FEEDLAB_DEMO: "0",
  FEEDLAB_LOG_LEVEL: "silent",
  FEEDLAB_ADMIN_USERNAME: "admin",
  FEEDLAB_ADMIN_PASSWORD: "bench-password",
  ...(process.env.BENCH_DATABASE_URL
    ? { DATABASE_URL: process.env.BENCH_DATABASE_URL }
    : { FEEDLAB_DATA_DIR: process.env.BENCH_DATA_DIR ?? "" }),
});
const runtime = await openRuntime(config, createLogger("silent"));
const { ensureFirstAdmin } = await import("../../api/src/auth/first-admin.ts");
await ensureFirstAdmin(runtime.services.auth, "admin", "bench-password");
const server = await listen(buildApp(runtime), "127.0.0.1", 0);

let sampledPeak = 0;
const peaks = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
const sample = () => {
  const m = process.memoryUsage();
  sampledPeak = Math.max(sampledPeak, m.rss);
  for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], m[k]);
};
let sampler: NodeJS.Timeout | undefined;

process.on("message", async (message: { type: string }) => {
  if (message.type === "start-sampling") {
    sampledPeak = process.memoryUsage().rss;
    sampler = setInterval(sample, 20);
    process.send?.({ type: "sampling", rss: sampledPeak });
  } else if (message.type === "report") {
    clearInterval(sampler);
    sample();
    process.send?.({
      type: "report",
      sampledPeakBytes: sampledPeak,
      peaks,
      // resourceUsage().maxRSS is in kilobytes: the process's high-water mark since it started.
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    });
    await closeServer(server, 1000);
    await runtime.close();
    process.exit(0);
  }
});
process.send?.({ type: "ready", port: (server.address() as AddressInfo).port });
