import { lookup as dnsLookup } from "node:dns";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, isIP, type LookupFunction, type Socket } from "node:net";
import { buildConnector } from "undici";

/** One request the fake recommender received. */
interface ReceivedCall {
  readonly method: string;
  /** Path and query string. */
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  /** Parsed JSON body (POST), or undefined. */
  readonly body: unknown;
  readonly query: URLSearchParams;
}

/** What the fake answers: a status and a body (JSON-encoded unless `raw`), after an optional delay. */
interface Answer {
  readonly status?: number;
  readonly json?: unknown;
  readonly raw?: string;
  readonly delayMs?: number;
}

export type Behaviour = (call: ReceivedCall) => Answer;

/**
 * A real HTTP server playing an external recommender in tests: it records each call and answers what
 * `behave` says (ids, a 5xx, invalid JSON, a delay past the timeout...). `setBehaviour` changes it.
 */
export interface FakeRecommender {
  readonly url: string;
  readonly calls: ReceivedCall[];
  setBehaviour(behave: Behaviour): void;
  close(): Promise<void>;
}

export async function startFakeRecommender(
  behave: Behaviour = () => ({ json: { video_ids: [] } }),
): Promise<FakeRecommender> {
  let current = behave;
  const calls: ReceivedCall[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const call: ReceivedCall = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body,
        query: new URL(req.url ?? "/", "http://x").searchParams,
      };
      calls.push(call);
      const answer = current(call);
      const send = () => {
        timers.delete(timer);
        if (res.destroyed) return;
        res.statusCode = answer.status ?? 200;
        res.setHeader("content-type", "application/json");
        res.end(answer.raw ?? JSON.stringify(answer.json ?? null));
      };
      const timer = setTimeout(send, answer.delayMs ?? 0);
      timers.add(timer);
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    setBehaviour: (b) => {
      current = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * Connections the API's outbound client tried to open, as its connector was asked (api.md "Trust
 * boundaries" tests). It opens only loopback connections; any other address is recorded and refused
 * without a packet sent, so a test can never reach the network (nor a metadata service).
 */
export interface ConnectionRecorder {
  readonly connector: buildConnector.connector;
  /** Every attempt: the address asked for, and its port. */
  readonly attempts: { hostname: string; port: string }[];
}

const isLoopback = (address: string) =>
  address === "::1" || address.startsWith("127.") || address === "::ffff:127.0.0.1";

export function recordConnections(): ConnectionRecorder {
  const attempts: { hostname: string; port: string }[] = [];
  const open = buildConnector({});
  return {
    attempts,
    connector: (opts, callback) => {
      attempts.push({ hostname: opts.hostname, port: opts.port });
      const host = opts.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) !== 0 && isLoopback(host)) open(opts, callback);
      else
        callback(
          Object.assign(new Error(`the test connector opens loopback connections only (asked for ${host})`), {
            code: "ECONNREFUSED",
          }),
          null,
        );
    },
  };
}

/**
 * A resolver for tests: names under `.metadata.test` resolve to the cloud metadata address, names
 * under `.mixed.test` to a loopback and a metadata address, and names under `.dns-fails.test` fail
 * like a missing name; anything else goes to the system's resolver.
 */
export const testLookup: LookupFunction = (hostname, options, callback) => {
  const answer = (addresses: { address: string; family: number }[]) => {
    const cb = callback as (e: Error | null, a: unknown, f?: number) => void;
    if (options.all) cb(null, addresses);
    else cb(null, addresses[0]?.address, addresses[0]?.family);
  };
  if (hostname.endsWith(".metadata.test")) answer([{ address: "169.254.169.254", family: 4 }]);
  else if (hostname.endsWith(".mixed.test"))
    answer([
      { address: "127.0.0.1", family: 4 },
      { address: "fd00:ec2::254", family: 6 },
    ]);
  else if (hostname.endsWith(".dns-fails.test"))
    (callback as (e: Error) => void)(
      Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }),
    );
  else dnsLookup(hostname, options, callback);
};
