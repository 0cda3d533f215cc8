import { Outbox } from "./outbox.ts";
import { type KeyValueStore, memoryStore } from "./storage.ts";
import { SequenceStore, Tracker } from "./tracker.ts";
import { Transport } from "./transport.ts";

/** One request the fake server saw. */
interface SeenRequest {
  readonly url: string;
  readonly init: RequestInit;
  readonly body: { session_id: string; events: { event_type: string; event_id: string; seq: number }[] };
}

type Reply = number | { status: number; headers?: Record<string, string>; body?: unknown } | "network-error";

/**
 * A fake `POST /api/v1/events`: records every request and answers from a script of replies (then
 * 202 with an increasing position).
 */
export function fakeServer(script: Reply[] = []) {
  const requests: SeenRequest[] = [];
  let offset = 0;
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    const text = typeof init.body === "string" ? init.body : await (init.body as Blob).text();
    const body = JSON.parse(text) as SeenRequest["body"];
    requests.push({ url, init, body });
    const reply = script.shift() ?? 202;
    if (reply === "network-error") throw new TypeError("Failed to fetch");
    const r = typeof reply === "number" ? { status: reply } : reply;
    if (r.status === 202) offset += body.events.length;
    const json =
      r.body ??
      (r.status === 202 ? { accepted: body.events.length, rejected: [], position: `p1.0-${offset}` } : {});
    return new Response(JSON.stringify(json), { status: r.status, headers: r.headers });
  };
  return {
    fetch,
    requests,
    /** Event types per request, in order. */
    types: () => requests.map((r) => r.body.events.map((e) => e.event_type)),
    reply: (...more: Reply[]) => script.push(...more),
  };
}

let ids = 0;
export const seqId = () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`;

/** A tracker on a fake server with in-memory storage. */
export function trackerOn(
  server: ReturnType<typeof fakeServer>,
  options: {
    local?: KeyValueStore;
    session?: KeyValueStore;
    sessionId?: string;
    beacon?: (u: string, b: Blob) => boolean;
  } = {},
) {
  const sessionId = options.sessionId ?? "7b4f0c2e-7a51-4c1e-9a51-0f4d2f1e9c11";
  const local = options.local ?? memoryStore();
  const outbox = new Outbox(local, sessionId, Date.now);
  const transport = new Transport({
    outbox,
    fetch: server.fetch,
    sendBeacon: options.beacon,
    now: Date.now,
    random: () => 0.5,
  });
  const tracker = new Tracker({
    sessionId,
    transport,
    seq: new SequenceStore(options.session ?? memoryStore(), sessionId),
    now: Date.now,
    newId: seqId,
  });
  return { tracker, transport, outbox, local, sessionId };
}

/** Lets pending promise callbacks (fetch replies) run under fake timers. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}
