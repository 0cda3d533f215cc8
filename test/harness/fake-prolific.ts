import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in for Prolific's public API (https://api.prolific.com), for tests: a real HTTP server on
 * 127.0.0.1 that keeps studies, submissions, bulk bonus payments and participant groups in memory and
 * answers the endpoints Feedlab calls as Prolific's API reference describes them (docs/prolific-api-notes.md
 * lists them, with the sources and what the reference leaves open). It records every request, counts
 * the pay calls of each bonus payment, and can fail on purpose: see {@link FakeProlific}.
 */

/** A submission's status, spelt as Prolific spells it (with a space, and a hyphen in TIMED-OUT). */
type SubmissionStatus =
  | "RESERVED"
  | "ACTIVE"
  | "TIMED-OUT"
  | "AWAITING REVIEW"
  | "APPROVED"
  | "RETURNED"
  | "REJECTED"
  | "SCREENED OUT";

/** The `rejection_category` values Prolific accepts with action REJECT. */
const REJECTION_CATEGORIES = new Set([
  "TOO_QUICKLY",
  "TOO_SLOWLY",
  "FAILED_INSTRUCTIONS",
  "INCOMP_LONGITUDINAL",
  "FAILED_CHECK",
  "LOW_EFFORT",
  "MALINGERING",
  "NO_CODE",
  "BAD_CODE",
  "NO_DATA",
  "UNSUPP_DEVICE",
  "OTHER",
]);
/** Transition actions Prolific knows; the fake carries out APPROVE and REJECT and refuses the others. */
const KNOWN_ACTIONS = new Set(["APPROVE", "REJECT", "COMPLETE", "RETURN", "SCREEN_OUT", "START", "UNREJECT"]);

/** What a failing request does: answer this status without acting, drop the connection without
 * acting, or act and then drop the connection (the caller never learns that Prolific acted). */
type Fault = number | "drop" | "lose-response";

interface SubmissionSeed {
  /** The submission (session) id, the join link's SESSION_ID; generated when left out. */
  readonly id?: string;
  /** The join link's PROLIFIC_PID. */
  readonly participant_id: string;
  /** Default ACTIVE. */
  readonly status?: SubmissionStatus;
  readonly study_code?: string | null;
  readonly started_at?: string;
  readonly completed_at?: string | null;
}

interface Submission {
  readonly id: string;
  readonly study_id: string;
  readonly participant_id: string;
  status: SubmissionStatus;
  study_code: string | null;
  started_at: string;
  completed_at: string | null;
  return_requested: string | null;
  /** Bonuses paid on it, in cents (one entry per pay call, so a bonus paid twice shows twice). */
  readonly bonus_payments: number[];
  /** The REJECT body that rejected it. */
  rejection: { message: string; rejection_category: string } | null;
  request_return_reasons: string[] | null;
}

interface BonusPayment {
  readonly id: string;
  readonly study: string;
  /** One line of csv_bonuses each: who (as sent), the submission it resolved to, cents. */
  readonly lines: { id: string; submission_id: string; cents: number }[];
  readonly amount: number;
  readonly fees: number;
  readonly vat: number;
  readonly total_amount: number;
  /** Pay calls Prolific accepted for it (the pay endpoint is not idempotent: each one pays). */
  pays: number;
}

/** One request the fake received, with the Authorization header's token replaced. */
interface RecordedRequest {
  readonly method: string;
  /** Path and query string, as sent. */
  readonly path: string;
  /** Lower-case names; `authorization` is `Token <redacted>` (or `<redacted>`), never the token. */
  readonly headers: Record<string, string>;
  /** The JSON body parsed, the raw text when it is not JSON, undefined when empty. */
  readonly body: unknown;
  /** The status answered, or "dropped" when the connection was closed instead. */
  status?: number | "dropped";
  /** True when a fault (failNext, failAfter, the outage) decided the answer. */
  fault?: boolean;
}

interface Options {
  /** The API token the fake accepts (random by default). */
  readonly token?: string;
  /** Default `limit` of a study's submissions list (default 20: small, so callers must follow `_links.next`). */
  readonly pageSize?: number;
  /** Prolific's fee on bonuses, as a fraction of each line (default 1/3, as in the reference's example). */
  readonly feeRate?: number;
  /** Bulk approval is asynchronous on Prolific: with a delay, the submissions stay AWAITING REVIEW that long. */
  readonly bulkApproveDelayMs?: number;
}

/** The fake Prolific a test talks to, and the handles it inspects and steers it by. */
export interface FakeProlific {
  /** The origin (`http://127.0.0.1:<port>`), without `/api/v1`: what FEEDLAB_PROLIFIC_URL takes. */
  readonly url: string;
  /** The token to send as `Authorization: Token <token>`. */
  readonly token: string;
  /** Every request received, in order, faulted ones included. */
  readonly requests: RecordedRequest[];
  /** Creates a study with its submissions; returns the study id. */
  seedStudy(study?: { id?: string; name?: string; submissions?: SubmissionSeed[] }): string;
  /** Adds a submission to a seeded study (a participant who just joined); returns its id. */
  addSubmission(studyId: string, seed: SubmissionSeed): string;
  /** Moves a submission as the participant or Prolific would (finishing: AWAITING REVIEW; returning: RETURNED). */
  setSubmissionStatus(submissionId: string, status: SubmissionStatus): void;
  /** A copy of a submission's state, or undefined. */
  submission(submissionId: string): Submission | undefined;
  /** Creates a participant group (with initial members); returns its id. */
  seedGroup(group?: { id?: string; name?: string; participant_ids?: string[] }): string;
  /** A group's member ids, in the order they joined. */
  groupMembers(groupId: string): string[];
  /** A copy of a bulk bonus payment, or undefined. */
  bonusPayment(id: string): BonusPayment | undefined;
  /** Every bulk bonus payment set up, oldest first. */
  bonusPayments(): BonusPayment[];
  /** The next `n` requests fail with `fault` (default 503). */
  failNext(n: number, fault?: Fault): void;
  /** After `k` more requests answer normally, the following `times` (default all) fail with `fault`. */
  failAfter(k: number, fault?: Fault, times?: number): void;
  /** Every request fails with `fault` until `setOutage(false)` (503 by default). */
  setOutage(fault: Fault | boolean): void;
  /** Ends the outage and forgets failNext / failAfter. */
  clearFaults(): void;
  close(): Promise<void>;
}

/** The error body Prolific answers: `{error: {status, error_code, title, detail}}`; `detail` is a
 * sentence or, for a body that fails validation, `{field: [sentences]}`. */
function errorBody(status: number, detail: unknown) {
  const titles: Record<number, string> = {
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    415: "Unsupported Media Type",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
  };
  // error_code: Prolific's own numbering is not published; the fake's is the status (never match on it).
  return { error: { status, error_code: status, title: titles[status] ?? "Error", detail } };
}

/** An answer: its status and its JSON body. */
class Reply {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    this.status = status;
    this.body = body;
  }
}
const invalid = (detail: Record<string, string[]>) => new Reply(400, errorBody(400, detail));
const notFound = () => new Reply(404, errorBody(404, "Not found."));

const prolificId = () => randomBytes(12).toString("hex");
const now = () => new Date().toISOString();
const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === "string" && x.length > 0);
const field = (body: unknown, name: string): unknown =>
  typeof body === "object" && body !== null ? (body as Record<string, unknown>)[name] : undefined;

/**
 * Starts a fake Prolific on a free port of 127.0.0.1.
 *
 * Faithful where Prolific's reference speaks: `Authorization: Token <token>` or 401; REJECT needs a
 * `message` of at least 100 characters and a known `rejection_category` (400 otherwise); a transition
 * repeated is ignored (200, unchanged); APPROVE and REJECT only from AWAITING REVIEW (400 otherwise);
 * bonus lines must name a participant or submission of the study (400 naming the others); amounts are
 * sent in the study's currency and answered in cents; the pay call is not idempotent, so paying again
 * pays again (and `bonusPayment(id).pays` says how often). Where the reference is silent the choice
 * is written beside the code and in docs/prolific-api-notes.md.
 */
export async function startFakeProlific(options: Options = {}): Promise<FakeProlific> {
  const token = options.token ?? randomBytes(20).toString("hex");
  const pageSize = options.pageSize ?? 20;
  const feeRate = options.feeRate ?? 1 / 3;
  const studies = new Map<string, { id: string; name: string; submissions: string[] }>();
  const submissions = new Map<string, Submission>();
  const payments = new Map<string, BonusPayment>();
  const groups = new Map<string, { id: string; name: string; members: Map<string, string> }>();
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let outage: Fault | null = null;
  let failing: { left: number; fault: Fault } | null = null;
  let later: { pass: number; times: number; fault: Fault } | null = null;
  let url = "";

  const submissionOf = (id: string) => {
    const s = submissions.get(id);
    if (!s) throw new Error(`fake Prolific: no submission ${id}`);
    return s;
  };
  const addSubmission = (studyId: string, seed: SubmissionSeed): string => {
    const study = studies.get(studyId);
    if (!study) throw new Error(`fake Prolific: no study ${studyId}`);
    const id = seed.id ?? prolificId();
    if (submissions.has(id)) throw new Error(`fake Prolific: submission ${id} exists`);
    const status = seed.status ?? "ACTIVE";
    const finished = !["RESERVED", "ACTIVE"].includes(status);
    submissions.set(id, {
      id,
      study_id: studyId,
      participant_id: seed.participant_id,
      status,
      study_code: seed.study_code ?? null,
      started_at: seed.started_at ?? now(),
      completed_at: seed.completed_at ?? (finished ? now() : null),
      return_requested: null,
      bonus_payments: [],
      rejection: null,
      request_return_reasons: null,
    });
    study.submissions.push(id);
    return id;
  };

  /** `GET .../submissions/{id}/` and the transition answer name the participant `participant`. */
  const detail = (s: Submission) => ({
    id: s.id,
    study_id: s.study_id,
    participant: s.participant_id,
    status: s.status,
    started_at: s.started_at,
    completed_at: s.completed_at,
    entered_code: s.study_code,
    return_requested: s.return_requested,
    bonus_payments: [...s.bonus_payments],
  });
  /** The study's submissions list names it `participant_id`. */
  const short = (s: Submission) => ({
    id: s.id,
    participant_id: s.participant_id,
    status: s.status,
    started_at: s.started_at,
    completed_at: s.completed_at,
    has_siblings: false,
    study_code: s.study_code,
    return_requested: s.return_requested,
  });

  const listSubmissions = (studyId: string, query: URLSearchParams): Reply => {
    const study = studies.get(studyId);
    if (!study) return notFound();
    const limit = Math.max(1, Number.parseInt(query.get("limit") ?? "", 10) || pageSize);
    const offset = Math.max(0, Number.parseInt(query.get("offset") ?? "", 10) || 0);
    const all = study.submissions.map(submissionOf);
    const page = (o: number) => `${url}/api/v1/studies/${studyId}/submissions/?limit=${limit}&offset=${o}`;
    const lastOffset = all.length === 0 ? 0 : Math.floor((all.length - 1) / limit) * limit;
    return new Reply(200, {
      results: all.slice(offset, offset + limit).map(short),
      _links: {
        self: { href: page(offset), title: "Current" },
        next: { href: offset + limit < all.length ? page(offset + limit) : null, title: "Next" },
        previous: { href: offset > 0 ? page(Math.max(0, offset - limit)) : null, title: "Previous" },
        last: { href: page(lastOffset), title: "Last" },
      },
      meta: { count: all.length },
    });
  };

  const transition = (s: Submission, body: unknown): Reply => {
    const action = field(body, "action");
    if (typeof action !== "string" || action === "") return invalid({ action: ["This field is required."] });
    if (!KNOWN_ACTIONS.has(action)) return invalid({ action: [`"${action}" is not a valid choice.`] });
    if (action !== "APPROVE" && action !== "REJECT") {
      return new Reply(400, errorBody(400, `The fake Prolific does not carry out ${action}.`));
    }
    if (action === "REJECT") {
      const problems: Record<string, string[]> = {};
      const message = field(body, "message");
      const category = field(body, "rejection_category");
      if (typeof message !== "string" || message === "") problems.message = ["This field is required."];
      // Prolific's API is Python: a character is a code point, not a UTF-16 unit.
      else if ([...message].length < 100)
        problems.message = ["Ensure this field has at least 100 characters."];
      if (typeof category !== "string" || category === "")
        problems.rejection_category = ["This field is required."];
      else if (!REJECTION_CATEGORIES.has(category))
        problems.rejection_category = [`"${category}" is not a valid choice.`];
      if (Object.keys(problems).length > 0) return invalid(problems);
    }
    const target = action === "APPROVE" ? "APPROVED" : "REJECTED";
    // "This endpoint is idempotent, so if you make the same request twice, the second request will be ignored."
    if (s.status === target) return new Reply(200, detail(s));
    if (s.status !== "AWAITING REVIEW") {
      return new Reply(400, errorBody(400, `A submission that is ${s.status} cannot be moved to ${target}.`));
    }
    s.status = target;
    if (target === "REJECTED") {
      s.rejection = {
        message: String(field(body, "message")),
        rejection_category: String(field(body, "rejection_category")),
      };
    }
    return new Reply(200, detail(s));
  };

  const bulkApprove = (body: unknown): Reply => {
    const submissionIds = field(body, "submission_ids");
    const studyId = field(body, "study_id");
    const participantIds = field(body, "participant_ids");
    let targets: Submission[];
    if (submissionIds !== undefined) {
      if (studyId !== undefined || participantIds !== undefined) {
        return invalid({
          non_field_errors: ["Send either submission_ids, or study_id with participant_ids."],
        });
      }
      if (!isStringList(submissionIds) || submissionIds.length === 0) {
        return invalid({ submission_ids: ["A non-empty list of submission ids is required."] });
      }
      targets = submissionIds.flatMap((id) => submissions.get(id) ?? []);
    } else {
      const problems: Record<string, string[]> = {};
      if (typeof studyId !== "string" || studyId === "") problems.study_id = ["This field is required."];
      if (!isStringList(participantIds) || participantIds.length === 0)
        problems.participant_ids = ["A non-empty list of participant ids is required."];
      if (Object.keys(problems).length > 0) return invalid(problems);
      const wanted = new Set(participantIds as string[]);
      targets = (studies.get(studyId as string)?.submissions ?? [])
        .map(submissionOf)
        .filter((s) => wanted.has(s.participant_id));
    }
    // Asynchronous on Prolific: ids that are unknown or not awaiting review are skipped, not refused.
    const approve = () => {
      for (const s of targets) if (s.status === "AWAITING REVIEW") s.status = "APPROVED";
    };
    if ((options.bulkApproveDelayMs ?? 0) > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        approve();
      }, options.bulkApproveDelayMs);
      timers.add(timer);
    } else approve();
    return new Reply(200, "The request to bulk approve has been made successfully.");
  };

  const requestReturn = (s: Submission, body: unknown): Reply => {
    const reasons = field(body, "request_return_reasons");
    if (!isStringList(reasons) || reasons.length === 0) {
      return invalid({ request_return_reasons: ["A non-empty list of reasons is required."] });
    }
    // The reference does not say from which statuses; the fake allows a submission still open or waiting.
    if (s.status !== "ACTIVE" && s.status !== "AWAITING REVIEW") {
      return new Reply(
        400,
        errorBody(400, `A return cannot be requested for a submission that is ${s.status}.`),
      );
    }
    s.return_requested = now();
    s.request_return_reasons = [...reasons];
    return new Reply(200, {
      id: s.id,
      status: s.status,
      participant: s.participant_id,
      return_requested: s.return_requested,
    });
  };

  const setUpBonuses = (body: unknown): Reply => {
    const studyId = field(body, "study_id");
    const csv = field(body, "csv_bonuses");
    if (typeof studyId !== "string" || studyId === "")
      return invalid({ study_id: ["This field is required."] });
    if (typeof csv !== "string" || csv.trim() === "")
      return invalid({ csv_bonuses: ["This field is required."] });
    const study = studies.get(studyId);
    if (!study) return invalid({ study_id: [`Study ${studyId} does not exist.`] });
    const ofStudy = study.submissions.map(submissionOf);
    const lines: BonusPayment["lines"] = [];
    const badIds: string[] = [];
    const badLines: string[] = [];
    for (const raw of csv.split(/\r?\n/)) {
      const line = raw.trim();
      if (line === "") continue;
      const [id = "", amount = "", ...rest] = line.split(",").map((x) => x.trim());
      // Amounts are decimals in the study's currency ("1.50" is £1.50). More than two decimals: refused
      // by the fake (Prolific does not document them).
      if (rest.length > 0 || !/^\d+(\.\d{1,2})?$/.test(amount) || Number(amount) <= 0) {
        badLines.push(line);
        continue;
      }
      const s = ofStudy.find((x) => x.participant_id === id || x.id === id);
      if (!s) badIds.push(id);
      else lines.push({ id, submission_id: s.id, cents: Math.round(Number(amount) * 100) });
    }
    if (badLines.length > 0) return invalid({ csv_bonuses: badLines.map((l) => `Invalid line: ${l}`) });
    if (badIds.length > 0) {
      return invalid({ csv_bonuses: [`These ids did not take part in the study: ${badIds.join(", ")}`] });
    }
    if (lines.length === 0) return invalid({ csv_bonuses: ["No bonus lines."] });
    const round2 = (x: number) => Math.round(x * 100) / 100;
    const amount = lines.reduce((sum, l) => sum + l.cents, 0);
    const fees = round2(lines.reduce((sum, l) => sum + round2(l.cents * feeRate), 0));
    const payment: BonusPayment = {
      id: prolificId(),
      study: studyId,
      lines,
      amount,
      fees,
      vat: 0,
      total_amount: round2(amount + fees),
      pays: 0,
    };
    payments.set(payment.id, payment);
    const { id, study: st, vat, total_amount } = payment;
    return new Reply(201, { id, study: st, amount, fees, vat, total_amount });
  };

  const pay = (id: string): Reply => {
    const payment = payments.get(id);
    if (!payment) return notFound();
    // "This endpoint is not idempotent": every call pays the bonuses again.
    payment.pays += 1;
    for (const line of payment.lines) submissionOf(line.submission_id).bonus_payments.push(line.cents);
    return new Reply(
      202,
      `Bulk bonus payment with ID ${id} is being processed asynchronously. Payments will be completed shortly.`,
    );
  };

  const groupList = (g: { members: Map<string, string> }) => ({
    results: [...g.members].map(([participant_id, datetime_created]) => ({
      participant_id,
      datetime_created,
    })),
  });

  const addToGroup = (g: { members: Map<string, string> }, body: unknown): Reply => {
    const ids = field(body, "participant_ids");
    if (!isStringList(ids)) return invalid({ participant_ids: ["A list of participant ids is required."] });
    // Already a member: ignored. The fake cannot know Prolific's participants and accepts any id.
    for (const id of ids) if (!g.members.has(id)) g.members.set(id, now());
    return new Reply(200, groupList(g));
  };

  const route = (method: string, path: string, query: URLSearchParams, body: unknown): Reply => {
    const p = path.replace(/\/+$/, "");
    const only = (allowed: string, act: () => Reply) =>
      method === allowed ? act() : new Reply(405, errorBody(405, `Method "${method}" not allowed.`));
    if (p === "/api/v1/users/me") {
      return only(
        "GET",
        () => new Reply(200, { id: "fakeresearcher", name: "Fake researcher", currency_code: "GBP" }),
      );
    }
    if (p === "/api/v1/submissions/bulk-approve") return only("POST", () => bulkApprove(body));
    if (p === "/api/v1/submissions/bonus-payments") return only("POST", () => setUpBonuses(body));
    const paying = p.match(/^\/api\/v1\/bulk-bonus-payments\/([^/]+)\/pay$/);
    if (paying) return only("POST", () => pay(paying[1] ?? ""));
    const listing = p.match(/^\/api\/v1\/studies\/([^/]+)\/submissions$/);
    if (listing) return only("GET", () => listSubmissions(listing[1] ?? "", query));
    const studyPath = p.match(/^\/api\/v1\/studies\/([^/]+)$/);
    if (studyPath) {
      const study = studies.get(studyPath[1] ?? "");
      return only("GET", () =>
        study ? new Reply(200, { id: study.id, name: study.name, status: "ACTIVE" }) : notFound(),
      );
    }
    const one = p.match(/^\/api\/v1\/submissions\/([^/]+)(\/transition|\/request-return)?$/);
    if (one) {
      const s = submissions.get(one[1] ?? "");
      if (!s) return notFound();
      if (one[2] === "/transition") return only("POST", () => transition(s, body));
      if (one[2] === "/request-return") return only("POST", () => requestReturn(s, body));
      return only("GET", () => new Reply(200, detail(s)));
    }
    const members = p.match(/^\/api\/v1\/participant-groups\/([^/]+)\/participants$/);
    if (members) {
      const g = groups.get(members[1] ?? "");
      if (!g) return notFound();
      if (method === "GET") return new Reply(200, groupList(g));
      return only("POST", () => addToGroup(g, body));
    }
    return notFound();
  };

  /** The fault deciding this request's answer, if any (the outage first, then failNext, then failAfter). */
  const nextFault = (): Fault | null => {
    if (outage !== null) return outage;
    if (failing && failing.left > 0) {
      failing.left -= 1;
      return failing.fault;
    }
    if (later) {
      if (later.pass > 0) later.pass -= 1;
      else if (later.times > 0) {
        later.times -= 1;
        return later.fault;
      }
    }
    return null;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      let badJson = false;
      if (text !== "") {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
          badJson = true;
        }
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined) continue;
        const joined = Array.isArray(value) ? value.join(", ") : value;
        headers[name] =
          name === "authorization" ? (/^Token /.test(joined) ? "Token <redacted>" : "<redacted>") : joined;
      }
      const target = new URL(req.url ?? "/", "http://fake");
      const recorded: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers, body };
      requests.push(recorded);
      const send = (reply: Reply, extra: Record<string, string> = {}) => {
        recorded.status = reply.status;
        res.writeHead(reply.status, { "content-type": "application/json", ...extra });
        res.end(JSON.stringify(reply.body));
      };
      const fault = nextFault();
      if (fault !== null) recorded.fault = true;
      if (fault === "drop") {
        recorded.status = "dropped";
        req.socket.destroy();
        return;
      }
      if (typeof fault === "number") {
        send(new Reply(fault, errorBody(fault, "The fake Prolific is failing on purpose.")));
        return;
      }
      let reply: Reply;
      if (req.headers.authorization !== `Token ${token}`) {
        reply = new Reply(
          401,
          errorBody(
            401,
            req.headers.authorization ? "Invalid token." : "Authentication credentials were not provided.",
          ),
        );
      } else if (text !== "" && !/^application\/json\b/.test(req.headers["content-type"] ?? "")) {
        reply = new Reply(
          415,
          errorBody(415, `Unsupported media type "${req.headers["content-type"] ?? ""}" in request.`),
        );
      } else if (badJson) {
        reply = new Reply(400, errorBody(400, "JSON parse error."));
      } else {
        reply = route(req.method ?? "", target.pathname, target.searchParams, body);
      }
      if (fault === "lose-response") {
        recorded.status = "dropped";
        req.socket.destroy();
        return;
      }
      send(reply, reply.status === 401 ? { "www-authenticate": "Token" } : {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const copy = <T>(x: T | undefined): T | undefined => (x === undefined ? undefined : structuredClone(x));
  return {
    url,
    token,
    requests,
    seedStudy(study = {}) {
      const id = study.id ?? prolificId();
      if (studies.has(id)) throw new Error(`fake Prolific: study ${id} exists`);
      studies.set(id, { id, name: study.name ?? "Fake study", submissions: [] });
      for (const s of study.submissions ?? []) addSubmission(id, s);
      return id;
    },
    addSubmission,
    setSubmissionStatus(submissionId, status) {
      const s = submissionOf(submissionId);
      s.status = status;
      if (status !== "RESERVED" && status !== "ACTIVE" && s.completed_at === null) s.completed_at = now();
    },
    submission: (id) => copy(submissions.get(id)),
    seedGroup(group = {}) {
      const id = group.id ?? prolificId();
      const members = new Map((group.participant_ids ?? []).map((p) => [p, now()] as const));
      groups.set(id, { id, name: group.name ?? "Fake group", members });
      return id;
    },
    groupMembers: (id) => [...(groups.get(id)?.members.keys() ?? [])],
    bonusPayment: (id) => copy(payments.get(id)),
    bonusPayments: () => structuredClone([...payments.values()]),
    failNext(n, fault = 503) {
      failing = { left: n, fault };
    },
    failAfter(k, fault = 503, times = Number.POSITIVE_INFINITY) {
      later = { pass: k, times, fault };
    },
    setOutage(fault) {
      outage = fault === false ? null : fault === true ? 503 : fault;
    },
    clearFaults() {
      outage = null;
      failing = null;
      later = null;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
