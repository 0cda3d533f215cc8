import { createServer } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { videoRows } from "../../../../test/harness/fixtures.ts";
import {
  closedPortUrl,
  type FakeRecommender,
  recordConnections,
  startFakeRecommender,
  testLookup,
} from "../../../../test/harness/recommender-server.ts";
import type { RecommenderRecord } from "../builtins.ts";
import { buildPool } from "../pool.ts";
import type { RecommendRequest } from "../recommender.ts";
import { createAddressPolicy } from "./addresses.ts";
import { createExternalHttpClient, type FailureKind } from "./client.ts";
import { createExternalHttpRecommender } from "./external-http.recommender.ts";

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
const OUTSIDE = "99999999-9999-4999-8999-999999999999";
const SECRET = "Bearer top-secret-token";

const rows = (n: number) => videoRows(n);

const pool = buildPool("11111111-2222-4333-8444-555555555555", rows(8));

function request(over: Partial<RecommendRequest> = {}): RecommendRequest {
  return {
    surface: "feed",
    experimentId: pool.experimentId,
    userId: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
    sessionId: "s",
    pool,
    current: null,
    limit: 4,
    offset: 0,
    excluded: new Uint8Array(pool.size),
    watched: [2, 5],
    params: {},
    ...over,
  };
}

/** The DNS of these tests: one name fails like a real resolver would; nothing else is looked up. */
const fakeLookup: LookupFunction = (hostname, _options, callback) => {
  const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: "ENOTFOUND",
    hostname,
  });
  (callback as (e: Error) => void)(err);
};

describe("external_http recommender against a real HTTP server", () => {
  let fake: FakeRecommender;
  const lines: Record<string, unknown>[] = [];
  const failures: [string, FailureKind][] = [];
  const calls: string[] = [];
  const log = pino(
    { level: "debug" },
    new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  const client = createExternalHttpClient({ lookup: fakeLookup });
  const metrics = {
    call: (key: string) => {
      calls.push(key);
    },
    failure: (key: string, kind: FailureKind) => {
      failures.push([key, kind]);
    },
  };
  const recommender = (config: Record<string, unknown>, key = "ext") =>
    createExternalHttpRecommender(
      {
        key,
        kind: "external_http",
        label: key,
        description: "",
        category: "external",
        supports_feed: true,
        supports_watch: true,
        config: { headers: { Authorization: SECRET }, ...config },
        created_at: null,
        updated_at: null,
      } satisfies RecommenderRecord,
      { client, log, metrics },
    );

  beforeAll(async () => {
    fake = await startFakeRecommender();
  });
  afterAll(async () => {
    await client.close();
    await fake?.close();
  });
  beforeEach(() => {
    lines.length = 0;
    failures.length = 0;
    calls.length = 0;
    fake.calls.length = 0;
  });

  const warnings = () => lines.filter((l) => l.level === 40);

  it("POSTs the spec's default body with the configured headers and keeps the answer's order", async () => {
    fake.setBehaviour(() => ({ json: { video_ids: [uuid(7), uuid(1), uuid(3)] } }));
    const ids = await recommender({ url: `${fake.url}/recommend` }).recommend(request());
    expect(ids).toEqual([uuid(7), uuid(1), uuid(3)]);
    const call = fake.calls[0];
    expect(call?.method).toBe("POST");
    expect(call?.url).toBe("/recommend");
    expect(call?.headers.authorization).toBe(SECRET);
    expect(call?.headers["content-type"]).toBe("application/json");
    expect(call?.body).toEqual({
      user_id: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
      experiment_id: pool.experimentId,
      limit: 4,
      offset: 0,
      current_video_id: null,
      exclude_video_ids: [uuid(2), uuid(5)],
    });
    expect(calls).toEqual(["ext"]);
    expect(warnings()).toEqual([]);
  });

  it("sends the current video on the watch page", async () => {
    fake.setBehaviour(() => ({ json: { video_ids: [] } }));
    await recommender({ url: fake.url }).recommend(
      request({ surface: "watch", current: { id: uuid(4), index: 4 } }),
    );
    expect(fake.calls[0]?.body).toMatchObject({ current_video_id: uuid(4) });
  });

  it("substitutes a body_template with the group's parameters, keeping the type of single placeholders", async () => {
    fake.setBehaviour(() => ({ json: { video_ids: [] } }));
    await recommender({
      url: fake.url,
      body_template: {
        who: "{user_id}",
        page: { size: "{limit}", from: "{offset}" },
        variant: "{variant}",
        alpha: "{alpha}",
        label: "arm-{variant}/{limit}",
        seen: "{exclude_video_ids}",
        missing: "{not_set}",
      },
    }).recommend(request({ params: { variant: "B", alpha: 0.3 } }));
    expect(fake.calls[0]?.body).toEqual({
      who: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
      page: { size: 4, from: 0 },
      variant: "B",
      alpha: 0.3,
      label: "arm-B/4",
      seen: [uuid(2), uuid(5)],
      missing: "{not_set}",
    });
  });

  it("sends the body's fields as query parameters with GET, lists as repeated names", async () => {
    fake.setBehaviour(() => ({ json: { video_ids: [uuid(0)] } }));
    const ids = await recommender({ url: `${fake.url}/r?model=v1`, method: "GET" }).recommend(
      request({ offset: 8 }),
    );
    expect(ids).toEqual([uuid(0)]);
    const call = fake.calls[0];
    expect(call?.method).toBe("GET");
    expect(call?.body).toBeUndefined();
    expect(call?.query.get("model")).toBe("v1");
    expect(call?.query.get("limit")).toBe("4");
    expect(call?.query.get("offset")).toBe("8");
    expect(call?.query.getAll("exclude_video_ids")).toEqual([uuid(2), uuid(5)]);
    expect(call?.query.has("current_video_id")).toBe(false);
  });

  it("reads ids through a video_id_path with *", async () => {
    fake.setBehaviour(() => ({ json: { items: [{ video_id: uuid(6), score: 1 }, { video_id: uuid(2) }] } }));
    const ids = await recommender({ url: fake.url, video_id_path: "items.*.video_id" }).recommend(request());
    expect(ids).toEqual([uuid(6), uuid(2)]);
  });

  it("drops non-UUIDs and ids outside the pool silently, keeping the order of the rest", async () => {
    fake.setBehaviour(() => ({ json: { video_ids: ["nope", uuid(3), OUTSIDE, 12, uuid(1)] } }));
    expect(await recommender({ url: fake.url }).recommend(request())).toEqual([uuid(3), uuid(1)]);
    expect(warnings()).toEqual([]);
  });

  it("reuses a kept-alive connection for later calls", async () => {
    const sockets = new Set<number>();
    const server = createServer((req, res) => {
      sockets.add(req.socket.remotePort ?? 0);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ video_ids: [uuid(1)] }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const rec = recommender({ url });
    for (let i = 0; i < 10; i++) await rec.recommend(request());
    // Sequential calls: a connection still finishing its previous exchange may make the pool open a
    // second one, never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  describe("every row of the failure table gives a logged warning and an empty list", () => {
    const rowsOfTable: [string, FailureKind, () => Promise<Record<string, unknown>>][] = [
      ["connection refused", "connection_refused", async () => ({ url: await closedPortUrl() })],
      [
        "a DNS error (through the lookup hook)",
        "dns",
        async () => ({ url: "http://recommender.invalid-host.test/r" }),
      ],
      [
        "the timeout exceeded",
        "timeout",
        async () => {
          fake.setBehaviour(() => ({ json: { video_ids: [uuid(1)] }, delayMs: 1500 }));
          return { url: fake.url, timeout_seconds: 0.3 };
        },
      ],
      [
        "an HTTP 5xx",
        "http_5xx",
        async () => {
          fake.setBehaviour(() => ({ status: 503, json: { video_ids: [uuid(1)] } }));
          return { url: fake.url };
        },
      ],
      [
        "a response that is not JSON",
        "invalid_json",
        async () => {
          fake.setBehaviour(() => ({ raw: "<html>oops" }));
          return { url: fake.url };
        },
      ],
      [
        "a path that resolves to a non-list",
        "not_a_list",
        async () => {
          fake.setBehaviour(() => ({ json: { video_ids: { first: uuid(1) } } }));
          return { url: fake.url };
        },
      ],
      [
        "ids that are all invalid UUIDs",
        "all_invalid_ids",
        async () => {
          fake.setBehaviour(() => ({ json: { video_ids: ["a", "b", 3] } }));
          return { url: fake.url };
        },
      ],
      [
        "ids that are all outside the pool",
        "all_outside_pool",
        async () => {
          fake.setBehaviour(() => ({ json: { video_ids: [OUTSIDE] } }));
          return { url: fake.url };
        },
      ],
      [
        "an HTTP 404 (not in the table, handled the same way)",
        "http_status",
        async () => {
          fake.setBehaviour(() => ({ status: 404, json: {} }));
          return { url: fake.url };
        },
      ],
    ];

    it.each(rowsOfTable)("%s", async (_name, kind, setup) => {
      const config = await setup();
      const started = performance.now();
      const ids = await recommender(config, `rec-${kind}`).recommend(request());
      expect(ids).toEqual([]);
      expect(failures).toEqual([[`rec-${kind}`, kind]]);
      expect(calls).toEqual([`rec-${kind}`]);
      const warned = warnings();
      expect(warned).toHaveLength(1);
      expect(warned[0]).toMatchObject({ kind, recommender: `rec-${kind}` });
      expect(JSON.stringify(lines)).not.toContain("top-secret-token");
      if (kind === "timeout") expect(performance.now() - started).toBeLessThan(1200);
    });
  });

  it("counts a trickling body against the total timeout", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"video_ids": [');
      const t = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(t));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const started = performance.now();
    expect(await recommender({ url, timeout_seconds: 0.4 }, "trickle").recommend(request())).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(failures).toEqual([["trickle", "timeout"]]);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
});

describe("the outbound client's address check", () => {
  const call = (client: ReturnType<typeof createExternalHttpClient>, url: string) =>
    client.call({ method: "GET", url, headers: {}, timeoutMs: 2000 });

  it("refuses a name resolving to a metadata address, or an address written in the URL, before any connection", async () => {
    const recorder = recordConnections();
    const client = createExternalHttpClient({ lookup: testLookup, connector: recorder.connector });
    try {
      for (const url of [
        "http://instance.metadata.test/latest/meta-data/",
        "http://both.mixed.test/rec",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
      ]) {
        const r = await call(client, url);
        expect(r, url).toMatchObject({ ok: false, kind: "blocked_address" });
      }
      expect(recorder.attempts).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it("connects where FEEDLAB_RECOMMENDER_ALLOW opens a link-local range, to the address it checked", async () => {
    const recorder = recordConnections();
    const policy = createAddressPolicy([{ address: "169.254.169.0", prefix: 24, family: "ipv4" }]);
    const client = createExternalHttpClient({ lookup: testLookup, connector: recorder.connector, policy });
    try {
      // The recorder refuses every address but loopback: nothing leaves the machine.
      const r = await call(client, "http://instance.metadata.test/rec");
      expect(r).toMatchObject({ ok: false, kind: "connection_refused" });
      expect(recorder.attempts).toEqual([{ hostname: "169.254.169.254", port: "" }]);
    } finally {
      await client.close();
    }
  });
});
