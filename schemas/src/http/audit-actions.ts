/**
 * Every action the audit log records (api.md `GET /api/v1/admin/audit`), with what it means in the
 * console's words. Routes declare their action from this list (`audit:` in api/src/http/route.ts), the
 * log names what each is about by its kind (api/src/audit/audit.subjects.ts), and the console shows the
 * words: a new action is added here once, and cannot reach the console as a raw code.
 */
export const AUDIT_ACTIONS = {
  "auth.login": "Signed in",
  "auth.login_failed": "Failed sign-in",
  "admin.add": "Added an admin",
  "admin.remove": "Removed an admin",
  "admin.role_change": "Changed an account's role",
  "admin.password_change": "Changed their password",
  "experiment.create": "Created an experiment",
  "experiment.update": "Changed an experiment",
  "experiment.delete": "Deleted an experiment",
  "experiment.members": "Changed an experiment's members",
  "arm.create": "Added an arm",
  "arm.update": "Changed an arm",
  "arm.delete": "Deleted an arm",
  "pool.update": "Changed a video pool",
  "participant.add": "Added a participant",
  "participant.exclusion": "Excluded or included a participant",
  "participant.erase": "Erased a participant",
  "participant.withdraw": "A participant withdrew",
  "survey.create": "Created a survey",
  "survey.update": "Changed a survey",
  "survey.delete": "Deleted a survey",
  "survey.activate": "Activated a survey",
  "survey.deactivate": "Deactivated a survey",
  "recommender.create": "Registered a recommender",
  "recommender.update": "Changed a recommender",
  "recommender.delete": "Deleted a recommender",
  "layout.create": "Created a layout",
  "layout.update": "Changed a layout",
  "layout.delete": "Deleted a layout",
  "video.create": "Added videos",
  "video.import": "Imported videos",
  "video.update": "Changed a video",
  "video.delete": "Deleted a video",
  "media.upload": "Uploaded a video, captions or a thumbnail",
  "model.train": "Started training",
  "dry_run.start": "Started a dry run",
  "dry_run.erase": "Erased a dry run's participants",
  "export.events": "Downloaded events",
  "export.participants": "Downloaded participants",
  "export.survey_responses": "Downloaded survey responses",
  "export.survey_responses_wide": "Downloaded survey responses (wide)",
  "export.survey_dismissals": "Downloaded survey dismissals",
  "export.package": "Downloaded a replication package",
  "study.apply": "Applied a study file",
  "prolific.submissions": "Read Prolific submissions",
  "prolific.approve": "Approved Prolific submissions",
  "prolific.reject": "Rejected a Prolific submission",
  "prolific.return": "Asked a Prolific participant to return",
  "prolific.bonus_create": "Set up Prolific bonuses",
  "prolific.bonus_pay": "Paid Prolific bonuses",
  "prolific.group_add": "Added participants to a Prolific group",
  "reminders.sent": "Sent reminders by e-mail",
  "reminders.failed": "Reminders by e-mail could not be sent",
} as const satisfies Readonly<Record<`${string}.${string}`, string>>;

/** An action the audit log records. */
export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The action in the console's words; an entry of an action no longer listed keeps its code. */
export const auditActionLabel = (action: string): string =>
  Object.hasOwn(AUDIT_ACTIONS, action) ? AUDIT_ACTIONS[action as AuditAction] : action;
