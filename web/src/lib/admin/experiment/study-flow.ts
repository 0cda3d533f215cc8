import { RECRUITING_PARAMETERS } from "@feedlab/schemas/http/enums.ts";

/*
 * The words and checks of the experiment page's "Consent and completion" section that need no component:
 * the recruitment platforms' links, the return link's placeholders and what is wrong with a return link.
 */

/** Where each recruitment platform sends finished participants; `{code}` is the completion code. */
export const PLATFORMS = [
  {
    name: "Prolific",
    redirect: "https://app.prolific.com/submissions/complete?cc={code}",
    link: "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
  },
  {
    name: "MTurk",
    redirect: "https://www.mturk.com/mturk/externalSubmit?assignmentId={assignmentId}&code={code}",
    link: "workerId=WORKER_ID&assignmentId=ASSIGNMENT_ID&hitId=HIT_ID",
  },
] as const;
/** Said above the study links while they turn new participants away (api.md: `experiment_not_open`). */
export const CLOSED = {
  draft: "The study is a draft: these links turn participants away until you start it.",
  paused: "The study is paused: these links turn new participants away until you resume it.",
  completed: "The study is completed: these links turn new participants away.",
} as const;
const PLACEHOLDER_NAMES: readonly string[] = ["login_id", "code", ...RECRUITING_PARAMETERS];
export const PLACEHOLDERS = PLACEHOLDER_NAMES.map((p) => `{${p}}`).join(", ");

/**
 * What is wrong with a return link, in the words of its field, before a round trip (the server checks
 * the same, api.md "Study flow", in the same words); null when it is fine.
 */
export function returnLinkProblem(link: string): string | null {
  const unknown = [...link.matchAll(/\{([^{}]*)\}/g)]
    .map((m) => m[1] ?? "")
    .filter((name) => !PLACEHOLDER_NAMES.includes(name));
  if (unknown.length > 0)
    return `The return link has placeholders Feedlab cannot fill: ${unknown.map((n) => `{${n}}`).join(", ")}. Use ${PLACEHOLDERS}.`;
  let url: URL | null = null;
  try {
    url = new URL(link.replace(/\{[^{}]*\}/g, "x"));
  } catch {
    url = null;
  }
  return url && (url.protocol === "https:" || url.protocol === "http:")
    ? null
    : "The return link must be a full web address starting with https:// (or http://): for Prolific, paste the whole completion URL, such as https://app.prolific.com/submissions/complete?cc={code}.";
}
