import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { partitionOf } from "../../../ingest/src/log/kafka-topics.ts";
import { startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy } from "../../../test/harness/fixtures.ts";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** The shell recipe of docs/events.md ("Kafka's console consumer and a standard Avro library"), as written there. */
function docsRecipe(): string {
  const doc = readFileSync(path.join(ROOT, "docs/events.md"), "utf8");
  const section = doc.slice(doc.indexOf("**Kafka's console consumer and a standard Avro library.**"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("the recipe is gone from docs/events.md");
  return block;
}

describe("a data engineer decodes the topic with Kafka's tools and Apache Avro's Python library", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp("kafka");
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("runs the documented recipe and reads the events Feedlab logged", async () => {
    const admin = await app.admin();
    const study = await createStudy(admin, { videoCount: 2, status: "running" });
    const p = await joinWithSession(app.client(), study.experiment.id, "engineer");
    const video = study.videos[0]?.external_id as string;
    const events = Array.from({ length: 12 }, () => wireEvent("VIDEO_PLAY", { video_id: video }));
    await deliverEvents(p, events);
    const config = app.runtime.config;
    // The docs' broker and topic, swapped for this run's, and the partition of this session.
    const partition = partitionOf(p.sessionId, config.kafkaPartitions);
    const recipe = docsRecipe()
      .replace("--partition 0", `--partition ${partition}`)
      .replaceAll("127.0.0.1:19092", config.kafkaBrokers.join(","))
      .replaceAll("feedlab.events.v1", config.kafkaTopic)
      .replace("export PATH=$PWD/.cache/kafka/bin:$PATH", `export PATH=${ROOT}/.cache/kafka/bin:$PATH`)
      .replace('open("schemas/avro/', `open("${ROOT}/schemas/avro/`);
    const cwd = mkdtempSync(path.join(tmpdir(), "recipe-"));
    const out = execFileSync("bash", ["-euo", "pipefail", "-c", recipe], {
      cwd,
      encoding: "utf8",
      // Debian's python3 with its python3-avro, as the recipe assumes.
      env: { ...process.env, PATH: `/usr/bin:${process.env.PATH}` },
      timeout: 120_000,
    });
    const decoded = JSON.parse(out.trim().split("\n").at(-1) as string) as Record<string, unknown>;
    // The topic is this app's own: the partition's first record is the session's first event.
    expect(decoded).toEqual({
      event_id: events[0]?.event_id,
      event_type: "VIDEO_PLAY",
      video_id: video,
      timestamp: expect.stringMatching(/^\d+$|^\d{4}-/),
    });
  }, 180_000);
});
