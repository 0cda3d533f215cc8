import type { Assignment } from "@feedlab/schemas/http/assignment.ts";

/** Each method in one sentence, as the Assignment section offers them (docs/assignment.md says more). */
export const ASSIGNMENT_METHOD_TEXT: Readonly<
  Record<Assignment["method"], { readonly name: string; readonly explanation: string }>
> = {
  balanced: {
    name: "Balanced",
    explanation:
      "Each newcomer goes to the arm furthest below its share: arms stay even, but the next arm can be predicted.",
  },
  blocked: {
    name: "Permuted blocks",
    explanation:
      "Arms are even at the end of every block of newcomers, in an order nobody can predict: the usual choice for a trial.",
  },
  minimisation: {
    name: "Minimisation",
    explanation:
      "Each newcomer goes, most of the time, to the arm that keeps the arms most alike on what you choose: pre-survey answers or link parameters (such as age band).",
  },
  adaptive: {
    name: "Adaptive",
    explanation:
      "After a balanced start, more newcomers go to the arm doing best on a metric (Thompson sampling); analyse it with the weights the results give.",
  },
};

export const COUNTS_TEXT: Readonly<Record<NonNullable<Assignment["counts"]>, string>> = {
  joined: "Everyone who joined",
  consented: "Those who consented",
  finished: "Those who finished, and those still taking part",
};

/** The Assignment section's fields as typed (number fields give null when empty). */
export interface AssignmentForm {
  method: Assignment["method"];
  counts: NonNullable<Assignment["counts"]>;
  staleMinutes: number | null;
  blockSize: number | null;
  /** Recruiting parameters' names, separated by commas. */
  covariates: string;
  /** The ids of the pre survey's questions ticked to balance on. */
  surveyCovariates: string[];
  randomElement: number | null;
  metric: NonNullable<Assignment["metric"]>;
  burnIn: number | null;
  floor: number | null;
  seed: number | null;
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** The most covariates an assignment takes (questions and parameters together). */
const MAX_COVARIATES = 10;
const whole = (n: number | null, lo: number, hi: number) =>
  n !== null && Number.isInteger(n) && n >= lo && n <= hi;

/** The assignment the form describes, with only the settings of its method, or what is wrong in the form's words. */
export function assignmentOf(form: AssignmentForm): Assignment | string {
  const out: Assignment = { method: form.method, counts: form.counts };
  if (form.staleMinutes !== null) {
    if (!whole(form.staleMinutes, 1, 1440)) return "The minutes must be a whole number from 1 to 1440.";
    out.stale_minutes = form.staleMinutes;
  }
  if (form.seed !== null && form.method !== "balanced") {
    if (!whole(form.seed, 0, 2_147_483_647)) return "The seed must be a whole number from 0.";
    out.seed = form.seed;
  }
  if (form.method === "blocked" && form.blockSize !== null) {
    if (!whole(form.blockSize, 2, 100)) return "The block size must be a whole number from 2 to 100.";
    out.block_size = form.blockSize;
  }
  if (form.method === "minimisation") {
    const keys = form.covariates
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k !== "");
    const questions = [...new Set(form.surveyCovariates)];
    if (keys.length === 0 && questions.length === 0)
      return "Choose a pre-survey question or name a link parameter to balance on.";
    const bad = keys.find((k) => !NAME.test(k));
    if (bad) return `“${bad}” cannot be a link parameter: use letters, digits and _ . - only.`;
    if (new Set(keys).size < keys.length) return "A parameter is named twice.";
    if (keys.length + questions.length > MAX_COVARIATES)
      return `Balance on at most ${MAX_COVARIATES} questions and parameters together.`;
    out.covariates = [
      ...questions.map((key) => ({ source: "survey" as const, key })),
      ...keys.map((key) => ({ source: "recruiting" as const, key })),
    ];
    const r = form.randomElement ?? 0.8;
    if (!(r >= 0.5 && r <= 1)) return "The chance of the most balancing arm must be from 0.5 to 1.";
    out.random_element = r;
  }
  if (form.method === "adaptive") {
    out.metric = form.metric;
    if (!whole(form.burnIn ?? 20, 0, 100_000))
      return "The balanced start must be a whole number of participants.";
    out.burn_in = form.burnIn ?? 20;
    const f = form.floor ?? 0.05;
    if (!(f >= 0 && f <= 0.5)) return "The least chance of an arm must be from 0 to 0.5.";
    out.floor = f;
  }
  return out;
}
