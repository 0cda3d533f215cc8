/**
 * The contract's enumerations as plain values, without the schema library: the browser imports them
 * from here (the schemas that use them import them too), so its bundles carry no validator code.
 */
export const EXPERIMENT_STATUSES = ["draft", "running", "paused", "completed"] as const;

/**
 * How long the completion page shows the code before it sends the participant to the return link, when
 * the completion does not say (api.md, "Console and exports (wave 3)": `completion.redirect_delay_s`).
 */
export const REDIRECT_DELAY_DEFAULT_S = 5;

export const VIDEO_TYPES = ["native", "youtube", "vimeo"] as const;
export type VideoType = (typeof VIDEO_TYPES)[number];

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "skipped"] as const;
export type ModelRunStatus = (typeof RUN_STATUSES)[number];
export const RUN_TRIGGERS = ["schedule", "manual"] as const;

export const UI_STYLES = ["grid", "list"] as const;
export const UI_DEVICES = ["desktop", "tablet", "mobile"] as const;

/** The special UI key: on the feed it bypasses the feed and opens the first watch video. */
export const UI_NONE = "none";

/** Recruiting parameters a study link may carry (Prolific and MTurk), kept with the participant. */
export const RECRUITING_PARAMETERS = [
  "PROLIFIC_PID",
  "STUDY_ID",
  "SESSION_ID",
  "workerId",
  "assignmentId",
  "hitId",
] as const;

/**
 * The name of any link parameter kept with a participant (api.md "Assignment (wave 4)": a join's
 * `recruiting` takes any parameter): letters, digits and `_ . -`, up to 64.
 */
export const RECRUITING_NAME_PATTERN = "^[A-Za-z0-9_.-]{1,64}$";
export const RECRUITING_NAME = new RegExp(RECRUITING_NAME_PATTERN);

/** An admin's username: 1-64 letters, digits and `. _ @ -` (the console, the CLI and FEEDLAB_ADMIN_USERNAME). */
export const ADMIN_USERNAME_PATTERN = "^[A-Za-z0-9._@-]{1,64}$";

/** The fewest characters an admin password may have. */
export const ADMIN_PASSWORD_MIN_LENGTH = 8;

/**
 * What every answer shows in place of a recommender header's value (api.md "Trust boundaries"):
 * header values are write-only. A write that sends it back keeps the stored value.
 */
export const HEADER_VALUE_MASK = "********";
