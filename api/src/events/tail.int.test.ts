import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { KAFKA_CLIENTS } from "@feedlab/ingest";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, startTestApp, type TestApp } from "../../../test/harness/app.ts";
import { deliverEvents, joinWithSession, wireEvent } from "../../../test/harness/events.ts";
import { createStudy, type StudyFixture } from "../../../test/harness/fixtures.ts";
import { runFeedlabAsync } from "../../../test/harness/processes.ts";

// `feedlab tail` as a data engineer runs it (api.md): records on stdout, messages on stderr; on Kafka
// only KAFKA_BROKERS, no topic created, no consumer group left behind.

const lines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

// On Kafka, the server writes with the default client and `feedlab tail` reads with each client.
describe.each(["postgres", ...KAFKA_CLIENTS.map((c) => `kafka, read with ${c}` as const)])(
  "feedlab tail (%s)",
  (variant) => {
    const reader = KAFKA_CLIENTS.find((c) => variant === `kafka, read with ${c}`);
    const backend = reader ? "kafka" : "postgres";
    let app: TestApp;
    let admin: Client;
    let studies: StudyFixture[];
    let env: Record<string, string>;
    const sent: string[] = [];
    beforeAll(async () => {
      app = await startTestApp(backend);
      admin = await app.admin();
      studies = [
        await createStudy(admin, { videoCount: 2, status: "running" }),
        await createStudy(admin, { videoCount: 2, status: "running" }),
      ];
      for (const [i, study] of studies.entries()) {
        const p = await joinWithSession(app.client(), study.experiment.id, `tail-${i}`);
        const events = [wireEvent("PAGE_LOAD"), wireEvent("SCROLL"), wireEvent("PAGE_LOAD")];
        await deliverEvents(p, events);
        sent.push(...events.map((e) => e.event_id));
      }
      const config = app.runtime.config;
      // Nothing but where the log is: no database for Kafka (and a data folder that must stay unmade).
      env =
        backend === "kafka"
          ? {
              KAFKA_BROKERS: config.kafkaBrokers.join(","),
              FEEDLAB_KAFKA_TOPIC: config.kafkaTopic,
              FEEDLAB_KAFKA_CLIENT: reader ?? "kafkajs",
              DATABASE_URL: "",
              FEEDLAB_DATA_DIR: path.join(mkdtempSync(path.join(tmpdir(), "tail-")), "never"),
            }
          : { DATABASE_URL: config.databaseUrl ?? "", KAFKA_BROKERS: "" };
    });
    afterAll(async () => {
      await app?.stop();
    });

    const groups = async () => {
      const kafka = new Kafka({
        clientId: "ops",
        brokers: [...app.runtime.config.kafkaBrokers],
        logLevel: logLevel.NOTHING,
      });
      const a = kafka.admin();
      await a.connect();
      const [listed, topics] = [(await a.listGroups()).groups.map((g) => g.groupId), await a.listTopics()];
      await a.disconnect();
      return { listed, topics };
    };

    it("prints only the chosen types of the chosen experiment, one JSON object a line, and messages only on stderr", async () => {
      const before = backend === "kafka" ? await groups() : null;
      const study = studies[1] as StudyFixture;
      const r = await runFeedlabAsync(
        ["tail", "--from-beginning", "--type", "PAGE_LOAD", "--experiment", study.experiment.id],
        env,
      );
      expect(r.status).toBe(0);
      const records = lines(r.stdout);
      expect(records.map((l) => l.event_type)).toEqual(["PAGE_LOAD", "PAGE_LOAD"]);
      expect(new Set(records.map((l) => l.experiment_id))).toEqual(new Set([study.experiment.id]));
      expect(records.every((l) => typeof l.partition === "number" && typeof l.offset === "number")).toBe(
        true,
      );
      if (backend === "kafka") {
        const after = await groups();
        expect(after.listed.filter((g) => !before?.listed.includes(g))).toEqual([]);
        expect(after.topics.sort()).toEqual(before?.topics.sort());
        expect(existsSync(env.FEEDLAB_DATA_DIR as string)).toBe(false);
      }
    });

    it("prints the newest records by default, and refuses an unknown type with the list of known ones", async () => {
      const r = await runFeedlabAsync(["tail", "--lines", "1"], env);
      expect(r.status).toBe(0);
      const records = lines(r.stdout);
      expect(records.length).toBeGreaterThan(0);
      expect(records.map((l) => l.event_id)).toContain(sent.at(-1));
      const bad = await runFeedlabAsync(["tail", "--type", "PAGE_LOADED"], env);
      expect(bad.status).toBe(2);
      expect(bad.stdout).toBe("");
      expect(bad.stderr).toMatch(/Unknown event type PAGE_LOADED\. Known: SESSION_START/);
    });

    it("follows from the newest record: prints what arrives after it started, and stops at once on Ctrl-C", async () => {
      const before = backend === "kafka" ? await groups() : null;
      const child = spawn(process.execPath, [path.resolve("bin/feedlab.mjs"), "tail", "--follow"], {
        env: { ...process.env, FEEDLAB_LOG_LEVEL: "warn", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const p = await joinWithSession(
        app.client(),
        (studies[0] as StudyFixture).experiment.id,
        `follow-${randomUUID()}`,
      );
      const fresh = wireEvent("PAGE_LOAD");
      // The follower may still be joining: send until it shows the event.
      const deadline = Date.now() + 60_000;
      let attempt = fresh;
      while (!out.includes(attempt.event_id) && Date.now() < deadline) {
        await deliverEvents(p, [attempt]);
        await new Promise((r) => setTimeout(r, 1000));
        if (!out.includes(attempt.event_id)) attempt = wireEvent("PAGE_LOAD");
      }
      const printed = lines(out);
      expect(printed.map((l) => l.event_id)).toContain(attempt.event_id);
      // Nothing from before it started.
      expect(printed.filter((l) => sent.includes(String(l.event_id)))).toEqual([]);
      const stopAt = Date.now();
      child.kill("SIGINT");
      expect(await closed).toBe(0);
      expect(Date.now() - stopAt).toBeLessThan(10_000);
      if (backend === "kafka") {
        const after = await groups();
        expect(after.listed.filter((g) => !before?.listed.includes(g))).toEqual([]);
      }
    }, 120_000);
  },
);
