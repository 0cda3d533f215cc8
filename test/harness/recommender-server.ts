import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

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
