import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("gives api.md's defaults when the environment is empty", () => {
    const c = loadConfig({}, "/srv/feedlab");
    expect(c).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "/srv/feedlab/data",
      databaseUrl: null,
      kafkaBrokers: [],
      adminUsername: "admin",
      adminPassword: null,
      demo: true,
      publicUrl: "http://127.0.0.1:8080",
      secureCookies: "over_https",
      trustProxy: { kind: "none" },
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it("reads every variable of api.md", () => {
    const c = loadConfig({
      PORT: "9000",
      HOST: "0.0.0.0",
      FEEDLAB_DATA_DIR: "/var/lib/feedlab",
      DATABASE_URL: "postgres://u@db/feedlab",
      KAFKA_BROKERS: "k1:9092, k2:9092",
      FEEDLAB_ADMIN_USERNAME: "lab",
      FEEDLAB_ADMIN_PASSWORD: "long-enough",
      FEEDLAB_DEMO: "0",
    });
    expect(c).toMatchObject({
      port: 9000,
      dataDir: "/var/lib/feedlab",
      databaseUrl: "postgres://u@db/feedlab",
      kafkaBrokers: ["k1:9092", "k2:9092"],
      adminUsername: "lab",
      adminPassword: "long-enough",
      demo: false,
      publicUrl: "http://localhost:9000",
    });
  });

  it("fails listing every problem at once when several variables are wrong", () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        FEEDLAB_DEMO: "maybe",
        FEEDLAB_ADMIN_PASSWORD: "short",
        KAFKA_BROKERS: "nohost",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join("\n");
    for (const name of ["PORT", "DATABASE_URL", "FEEDLAB_DEMO", "FEEDLAB_ADMIN_PASSWORD", "KAFKA_BROKERS"]) {
      expect(problems).toContain(name);
    }
  });

  it("trains every 600 s by default, reads FEEDLAB_TRAIN_INTERVAL_S, and refuses an interval under 10 s", () => {
    expect(loadConfig({}).trainIntervalSeconds).toBe(600);
    expect(loadConfig({ FEEDLAB_TRAIN_INTERVAL_S: "3600" }).trainIntervalSeconds).toBe(3600);
    expect(() => loadConfig({ FEEDLAB_TRAIN_INTERVAL_S: "5" })).toThrow(/FEEDLAB_TRAIN_INTERVAL_S/);
  });

  it("limits joins to 120 a minute per address by default, reads FEEDLAB_JOIN_RATE_LIMIT (0: off), and refuses a negative one", () => {
    expect(loadConfig({}).joinRateLimit).toBe(120);
    expect(loadConfig({ FEEDLAB_JOIN_RATE_LIMIT: "0" }).joinRateLimit).toBe(0);
    expect(loadConfig({ FEEDLAB_JOIN_RATE_LIMIT: "600" }).joinRateLimit).toBe(600);
    expect(() => loadConfig({ FEEDLAB_JOIN_RATE_LIMIT: "-1" })).toThrow(/FEEDLAB_JOIN_RATE_LIMIT/);
  });

  it("leaves /metrics open by default, reads FEEDLAB_METRICS_TOKEN, and refuses a short token or one with spaces", () => {
    expect(loadConfig({}).metricsToken).toBeNull();
    expect(loadConfig({ FEEDLAB_METRICS_TOKEN: "0123456789abcdef-x" }).metricsToken).toBe(
      "0123456789abcdef-x",
    );
    for (const bad of ["short", "0123456789 abcdef"])
      expect(() => loadConfig({ FEEDLAB_METRICS_TOKEN: bad })).toThrow(/FEEDLAB_METRICS_TOKEN/);
  });

  it("keeps Kafka records forever with participant fields sealed by default, and refuses other encryptions and registry URLs", () => {
    expect(loadConfig({})).toMatchObject({
      kafkaRetentionMs: -1,
      kafkaEncryption: "fields",
      kafkaClient: "kafkajs",
      schemaRegistryUrl: null,
    });
    expect(
      loadConfig({
        FEEDLAB_KAFKA_RETENTION_MS: "86400000",
        FEEDLAB_KAFKA_ENCRYPTION: "record",
        FEEDLAB_KAFKA_CLIENT: "platformatic",
        FEEDLAB_SCHEMA_REGISTRY_URL: "http://registry:8080/apis/ccompat/v7/",
      }),
    ).toMatchObject({
      kafkaRetentionMs: 86_400_000,
      kafkaEncryption: "record",
      kafkaClient: "platformatic",
      schemaRegistryUrl: "http://registry:8080/apis/ccompat/v7",
    });
    expect(() => loadConfig({ FEEDLAB_KAFKA_ENCRYPTION: "none" })).toThrow(/FEEDLAB_KAFKA_ENCRYPTION/);
    expect(() => loadConfig({ FEEDLAB_KAFKA_CLIENT: "rdkafka" })).toThrow(/FEEDLAB_KAFKA_CLIENT/);
    expect(() => loadConfig({ FEEDLAB_SCHEMA_REGISTRY_URL: "registry:8080" })).toThrow(
      /FEEDLAB_SCHEMA_REGISTRY_URL/,
    );
  });

  it("requires Secure cookies with an https public URL unless FEEDLAB_SECURE_COOKIES says otherwise", () => {
    expect(loadConfig({ FEEDLAB_PUBLIC_URL: "https://study.example.org" }).secureCookies).toBe("always");
    expect(
      loadConfig({ FEEDLAB_PUBLIC_URL: "https://study.example.org", FEEDLAB_SECURE_COOKIES: "0" })
        .secureCookies,
    ).toBe("never");
    expect(loadConfig({ FEEDLAB_SECURE_COOKIES: "1" }).secureCookies).toBe("always");
  });

  it("trusts no proxy by default, a count of the nearest proxies, or a list of addresses and CIDRs", () => {
    expect(loadConfig({ FEEDLAB_TRUST_PROXY: "0" }).trustProxy).toEqual({ kind: "none" });
    expect(loadConfig({ FEEDLAB_TRUST_PROXY: "2" }).trustProxy).toEqual({ kind: "hops", hops: 2 });
    expect(loadConfig({ FEEDLAB_TRUST_PROXY: "10.0.0.0/8, 127.0.0.1, fd00::/8" }).trustProxy).toEqual({
      kind: "networks",
      networks: [
        { address: "10.0.0.0", prefix: 8, family: "ipv4" },
        { address: "127.0.0.1", prefix: 32, family: "ipv4" },
        { address: "fd00::", prefix: 8, family: "ipv6" },
      ],
    });
  });

  it("refuses a FEEDLAB_TRUST_PROXY that is neither a count nor addresses, naming the bad entry", () => {
    for (const bad of ["true", "10.0.0.0/33", "proxy.local", "1.2.3.4/8/1", "64"]) {
      expect(() => loadConfig({ FEEDLAB_TRUST_PROXY: bad })).toThrow(/FEEDLAB_TRUST_PROXY/);
    }
    expect(() => loadConfig({ FEEDLAB_TRUST_PROXY: "10.0.0.1, nginx" })).toThrow(/"nginx"/);
  });
});
