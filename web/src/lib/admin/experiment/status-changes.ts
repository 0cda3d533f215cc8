import type { ExperimentStatus } from "../../types.ts";

/**
 * A change of the experiment's status as the console offers it: a button of its own, a confirmation
 * saying what it does to participants, then PATCH `{status: to}` at once (api.md, experiments).
 */
export interface StatusChange {
  readonly to: ExperimentStatus;
  /** The button's and the confirming button's words. */
  readonly label: string;
  /** The confirmation's question. */
  readonly title: string;
  /** What it does to participants, said in the confirmation. */
  readonly explain: string;
  /** Said once it is done. */
  readonly done: string;
}

const START: StatusChange = {
  to: "running",
  label: "Start the study",
  title: "Start the study?",
  explain:
    "From now on, new participants can join with the study link and the recruitment platforms' links. You can still change arms, the pool and settings, but each change while running is recorded with its time and splits the data into before and after.",
  done: "The study is running: participants can join.",
};
const PAUSE: StatusChange = {
  to: "paused",
  label: "Pause the study",
  title: "Pause the study?",
  explain:
    "Nobody new can join, and participants who come back see that the study is paused until you resume it. Nothing is deleted.",
  done: "The study is paused: nobody can join until you resume it.",
};
const RESUME: StatusChange = {
  ...START,
  label: "Resume the study",
  title: "Resume the study?",
  explain: "New participants can join again, and participants who come back continue where they stopped.",
  done: "The study is running again: participants can join.",
};
const COMPLETE: StatusChange = {
  to: "completed",
  label: "Complete the study",
  title: "Complete the study?",
  explain:
    "Nobody new can join. Participants who come back can still answer the post-study survey and see their completion code; when no completion rule is set, every participant is finished now.",
  done: "The study is completed: nobody new can join.",
};
const REOPEN: StatusChange = {
  ...START,
  label: "Reopen the study",
  title: "Reopen the study?",
  explain: "New participants can join again with the study link, as while it was running.",
  done: "The study is running again: participants can join.",
};

/** The changes offered from each status, the usual next step first. */
export const STATUS_CHANGES: Readonly<Record<ExperimentStatus, readonly StatusChange[]>> = {
  draft: [START],
  running: [PAUSE, COMPLETE],
  paused: [RESUME, COMPLETE],
  completed: [REOPEN],
};

/** What each status means for participants, said beside the status buttons. */
export const STATUS_MEANING: Readonly<Record<ExperimentStatus, string>> = {
  draft:
    "Draft: nobody can join yet, and the study links turn participants away. Start the study when “Before you start” is clear.",
  running: "Running: new participants join with the study link, and returning ones come back.",
  paused: "Paused: nobody new can join; participants who come back see that the study is paused.",
  completed:
    "Completed: nobody new can join; participants who come back can answer the post-study survey and see their completion code.",
};
