import { createInterface } from "node:readline";
import type { Experiment, Video } from "@feedlab/schemas";
import { Agent, request } from "undici";

/** Longest wait for an admin request's answer (the export's first bytes included). */
const TIMEOUT_MS = 30_000;

/** A load test that cannot start or check its result: the message says why and what to do. */
export class LoadTestError extends Error {}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

const why = (a: Answer) => {
  const body = a.body as { error?: { code?: string; message?: string } } | null;
  return body?.error?.message ?? body?.error?.code ?? `HTTP ${a.status}`;
};

/**
 * The admin side of `feedlab simulate`: signs in with the deployment's admin credentials, checks the
 * experiment before the run, gives the generator the pool, and afterwards reads the events export to
 * find the acknowledged event ids. Its requests have a pool of their own, apart from the generator's.
 */
export class AdminSession {
  private readonly dispatcher = new Agent({ connections: 2 });
  private cookie = "";
  private readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  private async call(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(`${this.url}${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: {
          accept: "application/json",
          ...(this.cookie === "" ? {} : { cookie: this.cookie }),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch (e) {
      throw new LoadTestError(`${this.url} did not answer ${method} ${path}: ${(e as Error).message}`);
    }
    const setCookie = res.headers["set-cookie"];
    if (setCookie)
      this.cookie = (Array.isArray(setCookie) ? setCookie : [setCookie])
        .map((c) => c.split(";")[0])
        .join("; ");
    const text = await res.body.text();
    let parsed: unknown = null;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      parsed = text;
    }
    return { status: res.statusCode, body: parsed };
  }

  async signIn(username: string, password: string): Promise<void> {
    const r = await this.call("POST", "/api/v1/auth/login", { username, password });
    if (r.status !== 200)
      throw new LoadTestError(
        `Signing in to ${this.url} as "${username}" failed (${why(r)}). Set FEEDLAB_ADMIN_USERNAME and FEEDLAB_ADMIN_PASSWORD to an admin of that deployment.`,
      );
  }

  /** The experiment, which must be running (a new login joins only a running study). */
  async runningExperiment(id: string): Promise<Experiment> {
    const r = await this.call("GET", `/api/v1/admin/experiments/${id}`);
    if (r.status === 404) throw new LoadTestError(`${this.url} has no experiment ${id}.`);
    if (r.status !== 200) throw new LoadTestError(`Reading experiment ${id} failed: ${why(r)}`);
    const experiment = r.body as Experiment;
    if (experiment.status !== "running")
      throw new LoadTestError(
        `Experiment "${experiment.name}" is ${experiment.status}: load participants join as new participants, which only a running experiment admits.`,
      );
    return experiment;
  }

  /** The experiment's pool, as the behaviour models draw their taste over it. */
  async pool(id: string): Promise<Pick<Video, "category" | "tags">[]> {
    const ids = await this.call("GET", `/api/v1/admin/experiments/${id}/videos`);
    const videos = await this.call("GET", "/api/v1/admin/videos");
    if (ids.status !== 200 || videos.status !== 200)
      throw new LoadTestError(
        `Reading the pool of experiment ${id} failed: ${why(ids.status !== 200 ? ids : videos)}`,
      );
    const inPool = new Set((ids.body as { video_ids: string[] }).video_ids);
    return (videos.body as Video[])
      .filter((v) => inPool.has(v.id))
      .map((v) => ({ category: v.category, tags: v.tags }));
  }

  /**
   * How many of `ids` the experiment's events export holds, reading events whose client timestamp is
   * `since` or later (a load run's own), as a stream: one line at a time.
   */
  async countStored(experimentId: string, since: Date, ids: ReadonlySet<string>): Promise<number> {
    const path = `/api/v1/admin/experiments/${experimentId}/events?format=ndjson&since=${encodeURIComponent(since.toISOString())}`;
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(`${this.url}${path}`, {
        dispatcher: this.dispatcher,
        headers: { cookie: this.cookie },
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
    } catch (e) {
      throw new LoadTestError(`the export did not answer: ${(e as Error).message}`);
    }
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new LoadTestError(`the export answered ${res.statusCode}: ${text.slice(0, 200)}`);
    }
    const found = new Set<string>();
    try {
      for await (const line of createInterface({ input: res.body, crlfDelay: Number.POSITIVE_INFINITY })) {
        if (line === "") continue;
        const id = (JSON.parse(line) as { event_id?: string }).event_id;
        if (id !== undefined && ids.has(id)) found.add(id);
      }
    } catch (e) {
      throw new LoadTestError(`the export broke off: ${(e as Error).message}`);
    }
    return found.size;
  }

  async close(): Promise<void> {
    await this.dispatcher.close().catch(() => {});
  }
}
