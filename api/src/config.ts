import path from "node:path";
import { DEFAULT_KAFKA_CLIENT, KAFKA_CLIENTS, type KafkaClientName } from "@feedlab/ingest";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "@feedlab/schemas/http/enums.ts";
import { parseTrustProxy, type TrustProxy } from "./http/client-address.ts";
import { type AllowedNetwork, parseAllowedNetworks } from "./recommenders/external-http/addresses.ts";

/** Log levels accepted by FEEDLAB_LOG_LEVEL (pino's). */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The process configuration, parsed once from the environment and frozen. Nothing else reads `process.env`. */
export interface Config {
  /** TCP port of the HTTP server (`PORT`, default 8080). */
  readonly port: number;
  /** Interface to bind (`HOST`, default 127.0.0.1). */
  readonly host: string;
  /** Where the embedded database lives (`FEEDLAB_DATA_DIR`, default `./data`). */
  readonly dataDir: string;
  /**
   * Where uploaded media are kept (`FEEDLAB_MEDIA_DIR`, default `<data folder>/media`). Every API
   * process of a scale-out deployment must see the same folder (a shared volume).
   */
  readonly mediaDir: string;
  /**
   * Uploaded media in an S3-compatible bucket instead of the media folder (`FEEDLAB_MEDIA_S3_BUCKET`,
   * with `FEEDLAB_MEDIA_S3_ENDPOINT` for a store other than AWS, `FEEDLAB_MEDIA_S3_REGION` (default
   * us-east-1), `FEEDLAB_MEDIA_S3_PREFIX`; credentials from the AWS SDK's usual variables).
   */
  readonly mediaS3: {
    readonly bucket: string;
    readonly endpoint: string | null;
    readonly region: string;
    readonly prefix: string;
  } | null;
  /** The largest upload accepted, in bytes (`FEEDLAB_MAX_UPLOAD_MB`, default 2048 MB). */
  readonly maxUploadBytes: number;
  /** A `postgres://` URL switches from embedded PGlite to PostgreSQL (`DATABASE_URL`). */
  readonly databaseUrl: string | null;
  /** Kafka brokers; switches from the embedded event log to Kafka (`KAFKA_BROKERS`). */
  readonly kafkaBrokers: readonly string[];
  /** The event topic (`FEEDLAB_KAFKA_TOPIC`, default `feedlab.events.v1`). */
  readonly kafkaTopic: string;
  /** Partitions of the event topic when Feedlab creates it (`FEEDLAB_KAFKA_PARTITIONS`, default 6). */
  readonly kafkaPartitions: number;
  /**
   * `retention.ms` of the event topic when Feedlab creates it (`FEEDLAB_KAFKA_RETENTION_MS`, default
   * -1: records are kept forever, which replay needs).
   */
  readonly kafkaRetentionMs: number;
  /**
   * What each participant's key encrypts on Kafka (`FEEDLAB_KAFKA_ENCRYPTION`): `fields` (default:
   * their login and payloads; standard Avro tools read the rest) or `record` (the whole value).
   */
  readonly kafkaEncryption: "fields" | "record";
  /**
   * The Kafka client the event log runs on (`FEEDLAB_KAFKA_CLIENT`): `kafkajs` (default) or
   * `platformatic` (@platformatic/kafka); both pass the same tests, the README compares them and says
   * why the default is the default.
   */
  readonly kafkaClient: KafkaClientName;
  /**
   * A Confluent-compatible schema registry's base URL (`FEEDLAB_SCHEMA_REGISTRY_URL`): values are
   * then written in the Confluent wire format with the schema registered there.
   */
  readonly schemaRegistryUrl: string | null;
  /** Username of the first admin, created at start when no admin exists (`FEEDLAB_ADMIN_USERNAME`). */
  readonly adminUsername: string;
  /** Password of the first admin; when absent one is generated and printed once (`FEEDLAB_ADMIN_PASSWORD`). */
  readonly adminPassword: string | null;
  /** Seed the demo study at start (`FEEDLAB_DEMO`, 1/0, default 1). */
  readonly demo: boolean;
  /** `FEEDLAB_LOG_LEVEL`, default info. */
  readonly logLevel: LogLevel;
  /** `FEEDLAB_LOG_FORMAT`: json, pretty, or auto (pretty on a terminal). */
  readonly logFormat: "json" | "pretty" | "auto";
  /** Public origin used in printed links (`FEEDLAB_PUBLIC_URL`, default http://HOST:PORT). */
  readonly publicUrl: string;
  /**
   * FEEDLAB_PUBLIC_URL was set. Otherwise `publicUrl` is the default http://HOST:PORT, whose port
   * follows the one the server really listens on (PORT=0 picks a free one): see `effectivePublicUrl`.
   */
  readonly publicUrlSet: boolean;
  /**
   * When session cookies are `Secure` (`FEEDLAB_SECURE_COOKIES`): `always` (1, and the default with an
   * https public URL: a request that did not arrive over HTTPS cannot sign in or join, 400
   * `insecure_request`), `over_https` (the default otherwise: when the request arrived over HTTPS) or
   * `never` (0).
   */
  readonly secureCookies: "always" | "over_https" | "never";
  /**
   * The reverse proxies whose forwarded headers are believed (`FEEDLAB_TRUST_PROXY`: a count of the
   * proxies nearest the server, or their addresses and CIDRs; default none): the client's address and
   * protocol come from them.
   */
  readonly trustProxy: TrustProxy;
  /** A session with no events for this many minutes counts as ended (`FEEDLAB_SESSION_IDLE_MINUTES`, 30). */
  readonly sessionIdleMinutes: number;
  /**
   * Keep-alive connections per external recommender origin (`FEEDLAB_RECOMMENDER_CONNECTIONS`, 1024):
   * calls in flight beyond this wait for a free connection (and count against their timeout).
   */
  readonly recommenderConnections: number;
  /**
   * Link-local networks external recommender calls may reach after all (`FEEDLAB_RECOMMENDER_ALLOW`, a
   * comma list of CIDRs; default none): calls never connect to 169.254.0.0/16, fe80::/10 or
   * fd00:ec2::254 otherwise (cloud metadata services). Loopback and private ranges are always open.
   */
  readonly recommenderAllow: readonly AllowedNetwork[];
  /**
   * Seconds between scheduled training runs of an experiment that serves `learned_model`
   * (`FEEDLAB_TRAIN_INTERVAL_S`, 600). A run with nothing new since the last model is recorded as skipped.
   */
  readonly trainIntervalSeconds: number;
  /**
   * With it set (`FEEDLAB_JOIN_SECRET`), joining needs `sig`: the hex HMAC-SHA256 of
   * `{experiment_id}:{login_id}` under it, so participants cannot join as each other.
   */
  readonly joinSecret: string | null;
  /**
   * With it set (`FEEDLAB_METRICS_TOKEN`, 16 or more characters), `GET /metrics` needs
   * `Authorization: Bearer <token>`; unset, anyone who reaches the server may read the metrics.
   */
  readonly metricsToken: string | null;
  /** Joins one client address may make per minute (`FEEDLAB_JOIN_RATE_LIMIT`, default 120; 0: no limit). */
  readonly joinRateLimit: number;
  /** The Chromium browser dry runs drive (`FEEDLAB_CHROMIUM`); null: the usual places. */
  readonly chromium: string | null;
  /**
   * Prolific (api.md "Prolific (wave 4)"): the workspace's API token (`FEEDLAB_PROLIFIC_TOKEN`, sent as
   * `Authorization: Token <token>`; null: the Prolific routes answer 409 prolific_not_configured) and
   * the API's origin (`FEEDLAB_PROLIFIC_URL`, default https://api.prolific.com).
   */
  readonly prolific: { readonly token: string | null; readonly url: string };
  /**
   * Mail for reminders (api.md "Longitudinal studies (wave 4)"): the SMTP server (`FEEDLAB_SMTP_URL`,
   * `smtp://` or `smtps://`, user and password in the URL; null: no reminders can be sent, and a study
   * that sends them cannot start) and the sender (`FEEDLAB_MAIL_FROM`, default
   * `Feedlab <feedlab@HOST-OF-FEEDLAB_PUBLIC_URL>`). A secret: never logged or answered.
   */
  readonly mail: { readonly smtpUrl: string | null; readonly from: string };
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** Parses the environment into a frozen Config, collecting every problem before failing. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = str(name);
    if (raw === undefined) return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return def;
    }
    return n;
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name);
    if (raw === undefined) return def;
    if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
    if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
    problems.push(`${name} must be 1 or 0 (got "${raw}")`);
    return def;
  };

  const port = int("PORT", 8080, 0, 65535);
  const host = str("HOST") ?? "127.0.0.1";
  const dataDir = path.resolve(cwd, str("FEEDLAB_DATA_DIR") ?? "data");
  const mediaDir = path.resolve(cwd, str("FEEDLAB_MEDIA_DIR") ?? path.join(dataDir, "media"));
  const maxUploadBytes = int("FEEDLAB_MAX_UPLOAD_MB", 2048, 1, 1024 * 1024) * 1024 * 1024;
  const s3Bucket = str("FEEDLAB_MEDIA_S3_BUCKET") ?? null;
  const s3Endpoint = str("FEEDLAB_MEDIA_S3_ENDPOINT")?.replace(/\/+$/, "") ?? null;
  if (s3Endpoint !== null && !/^https?:\/\//.test(s3Endpoint))
    problems.push("FEEDLAB_MEDIA_S3_ENDPOINT must start with http:// or https://");
  if (s3Bucket === null && s3Endpoint !== null)
    problems.push("FEEDLAB_MEDIA_S3_ENDPOINT needs FEEDLAB_MEDIA_S3_BUCKET (the bucket to keep uploads in)");
  const mediaS3 =
    s3Bucket === null
      ? null
      : Object.freeze({
          bucket: s3Bucket,
          endpoint: s3Endpoint,
          region: str("FEEDLAB_MEDIA_S3_REGION") ?? "us-east-1",
          prefix: str("FEEDLAB_MEDIA_S3_PREFIX") ?? "",
        });

  const databaseUrl = str("DATABASE_URL") ?? null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL must be a postgres:// or postgresql:// URL");
  }

  const kafkaBrokers = (str("KAFKA_BROKERS") ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => b !== "");
  for (const b of kafkaBrokers) {
    if (!/^[^\s:]+:\d{1,5}$/.test(b)) problems.push(`KAFKA_BROKERS entry "${b}" must be host:port`);
  }

  const kafkaTopic = str("FEEDLAB_KAFKA_TOPIC") ?? "feedlab.events.v1";
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(kafkaTopic))
    problems.push("FEEDLAB_KAFKA_TOPIC must be a Kafka topic name");
  const kafkaPartitions = int("FEEDLAB_KAFKA_PARTITIONS", 6, 1, 1000);
  const kafkaRetentionMs = int("FEEDLAB_KAFKA_RETENTION_MS", -1, -1, Number.MAX_SAFE_INTEGER);
  const kafkaEncryption = str("FEEDLAB_KAFKA_ENCRYPTION") ?? "fields";
  if (kafkaEncryption !== "fields" && kafkaEncryption !== "record")
    problems.push("FEEDLAB_KAFKA_ENCRYPTION must be fields or record");
  const kafkaClient = str("FEEDLAB_KAFKA_CLIENT") ?? DEFAULT_KAFKA_CLIENT;
  if (!(KAFKA_CLIENTS as readonly string[]).includes(kafkaClient))
    problems.push(`FEEDLAB_KAFKA_CLIENT must be one of ${KAFKA_CLIENTS.join(", ")}`);
  const schemaRegistryUrl = str("FEEDLAB_SCHEMA_REGISTRY_URL")?.replace(/\/+$/, "") ?? null;
  if (schemaRegistryUrl !== null && !/^https?:\/\//.test(schemaRegistryUrl))
    problems.push("FEEDLAB_SCHEMA_REGISTRY_URL must start with http:// or https://");

  const adminUsername = str("FEEDLAB_ADMIN_USERNAME") ?? "admin";
  if (!new RegExp(ADMIN_USERNAME_PATTERN).test(adminUsername)) {
    problems.push("FEEDLAB_ADMIN_USERNAME must be 1-64 characters of letters, digits, . _ @ -");
  }
  const adminPassword = env.FEEDLAB_ADMIN_PASSWORD ?? null;
  if (adminPassword !== null && adminPassword.length < ADMIN_PASSWORD_MIN_LENGTH) {
    problems.push("FEEDLAB_ADMIN_PASSWORD must be at least 8 characters");
  }

  const demo = bool("FEEDLAB_DEMO", true);
  const logLevelRaw = str("FEEDLAB_LOG_LEVEL") ?? "info";
  const logLevel = (LOG_LEVELS as readonly string[]).includes(logLevelRaw)
    ? (logLevelRaw as LogLevel)
    : "info";
  if (logLevel !== logLevelRaw) problems.push(`FEEDLAB_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);

  const logFormatRaw = str("FEEDLAB_LOG_FORMAT") ?? "auto";
  const logFormat = logFormatRaw === "json" || logFormatRaw === "pretty" ? logFormatRaw : "auto";
  if (logFormat !== logFormatRaw) problems.push("FEEDLAB_LOG_FORMAT must be json, pretty or auto");

  const displayHost = host === "0.0.0.0" || host === "::" ? "localhost" : host;
  const publicUrlSet = str("FEEDLAB_PUBLIC_URL") !== undefined;
  const publicUrl = (str("FEEDLAB_PUBLIC_URL") ?? `http://${displayHost}:${port}`).replace(/\/+$/, "");
  if (!/^https?:\/\//.test(publicUrl))
    problems.push("FEEDLAB_PUBLIC_URL must start with http:// or https://");
  const forcedSecure =
    str("FEEDLAB_SECURE_COOKIES") === undefined ? null : bool("FEEDLAB_SECURE_COOKIES", true);
  const secureCookies: Config["secureCookies"] =
    forcedSecure === null
      ? publicUrl.startsWith("https://")
        ? "always"
        : "over_https"
      : forcedSecure
        ? "always"
        : "never";
  const trust = parseTrustProxy(str("FEEDLAB_TRUST_PROXY"));
  if ("problem" in trust) problems.push(trust.problem);
  const trustProxy = "problem" in trust ? ({ kind: "none" } as const) : Object.freeze(trust);

  const sessionIdleMinutes = int("FEEDLAB_SESSION_IDLE_MINUTES", 30, 1, 7 * 24 * 60);
  const recommenderConnections = int("FEEDLAB_RECOMMENDER_CONNECTIONS", 1024, 1, 65_535);
  const allow = parseAllowedNetworks(str("FEEDLAB_RECOMMENDER_ALLOW"));
  if ("problem" in allow) problems.push(allow.problem);
  const recommenderAllow = Object.freeze(
    "problem" in allow ? [] : allow.networks.map((n) => Object.freeze(n)),
  );
  const trainIntervalSeconds = int("FEEDLAB_TRAIN_INTERVAL_S", 600, 10, 30 * 24 * 3600);
  const joinRateLimit = int("FEEDLAB_JOIN_RATE_LIMIT", 120, 0, 1_000_000);
  const joinSecret = env.FEEDLAB_JOIN_SECRET ?? null;
  if (joinSecret !== null && joinSecret.length < 16)
    problems.push("FEEDLAB_JOIN_SECRET must be at least 16 characters (a long random string)");

  const metricsToken = str("FEEDLAB_METRICS_TOKEN") ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,}$/.test(metricsToken))
    problems.push(
      "FEEDLAB_METRICS_TOKEN must be at least 16 characters without spaces (a long random string, sent as a bearer token)",
    );

  const prolificToken = str("FEEDLAB_PROLIFIC_TOKEN") ?? null;
  if (prolificToken !== null && !/^[\x21-\x7e]+$/.test(prolificToken))
    problems.push("FEEDLAB_PROLIFIC_TOKEN must be Prolific's API token, without spaces");
  const prolificUrl = (str("FEEDLAB_PROLIFIC_URL") ?? "https://api.prolific.com").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+$/.test(prolificUrl))
    problems.push("FEEDLAB_PROLIFIC_URL must be an origin such as https://api.prolific.com (no path)");

  const smtpUrl = str("FEEDLAB_SMTP_URL") ?? null;
  if (smtpUrl !== null) {
    let ok = false;
    try {
      const u = new URL(smtpUrl);
      ok = (u.protocol === "smtp:" || u.protocol === "smtps:") && u.hostname !== "";
    } catch {
      ok = false;
    }
    if (!ok)
      problems.push(
        "FEEDLAB_SMTP_URL must be an SMTP server's address such as smtps://user:password@mail.example.org:465 or smtp://mail.example.org:587",
      );
  }
  const mailFrom =
    str("FEEDLAB_MAIL_FROM") ?? `Feedlab <feedlab@${URL.parse(publicUrl)?.hostname || "localhost"}>`;
  if (!/^[^\r\n]*@[^\r\n]*$/.test(mailFrom))
    problems.push("FEEDLAB_MAIL_FROM must be one address, such as Study team <study@example.org>");

  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    port,
    host,
    dataDir,
    mediaDir,
    mediaS3,
    maxUploadBytes,
    databaseUrl,
    kafkaBrokers: Object.freeze(kafkaBrokers),
    kafkaTopic,
    kafkaPartitions,
    kafkaRetentionMs,
    kafkaEncryption: kafkaEncryption as Config["kafkaEncryption"],
    kafkaClient: kafkaClient as KafkaClientName,
    schemaRegistryUrl,
    adminUsername,
    adminPassword,
    demo,
    logLevel,
    logFormat,
    publicUrl,
    publicUrlSet,
    secureCookies,
    trustProxy,
    sessionIdleMinutes,
    recommenderConnections,
    recommenderAllow,
    trainIntervalSeconds,
    joinSecret,
    metricsToken,
    chromium: env.FEEDLAB_CHROMIUM?.trim() || null,
    joinRateLimit,
    prolific: Object.freeze({ token: prolificToken, url: prolificUrl }),
    mail: Object.freeze({ smtpUrl, from: mailFrom }),
  });
}
