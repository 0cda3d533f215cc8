import { participantApi as api, type ParticipantApi } from "../participant-api.ts";
import type { ParticipantMe, SurfaceConfig } from "../types.ts";
import { DataClient } from "./data-client.ts";
import { TrackingCore } from "./tracking/core.ts";

/** What the runtime reads of `GET /me`: the participant and their group's configuration. */
export type RuntimeMe = Omit<
  AssignedMe,
  | "status"
  | "completion"
  | "consent"
  | "experiment_name"
  | "progress"
  | "simulated"
  | "languages"
  | "language_switch"
  | "next_session"
  | "session_open"
  | "email_reminders"
>;

/** A participant with an arm, and so its configuration (api.md "Assignment (wave 4)"). */
export type AssignedMe = ParticipantMe & {
  readonly group_id: string;
  readonly algorithm_config: SurfaceConfig;
  readonly ui_config: SurfaceConfig;
};

/** False while the participant waits for their arm: a study that assigns on the pre survey's answers. */
export const isAssigned = (me: ParticipantMe): me is AssignedMe =>
  me.group_id !== null && me.algorithm_config !== null && me.ui_config !== null;

/** What `useSession()` returns: the participant, their session and their group's configuration. */
export interface PlatformSession {
  readonly sessionId: string;
  readonly userId: string;
  readonly loginId: string;
  readonly experimentId: string;
  readonly experimentStatus: string;
  readonly groupId: string;
  /** Recommender keys per page. */
  readonly algorithmConfig: SurfaceConfig;
  /** UI keys per page. */
  readonly uiConfig: SurfaceConfig;
}

/** The watch page's player, as `useLikes()` reads it for LIKE's video clock position. */
export interface ActivePlayer {
  /** External id of the playing video. */
  readonly videoId: string;
  currentTime(): number;
}

/**
 * The participant platform of one session: the tracking core, the data client and the session facts.
 * One per browser tab and session, living across the app's page navigations; the layout host puts it
 * in the Preact tree and the surfaces and hooks use it.
 */
export class PlatformRuntime {
  session: PlatformSession;
  readonly core: TrackingCore;
  readonly data: DataClient;
  /** Set by the watch page's VideoSurface while it is mounted. */
  player: ActivePlayer | null = null;

  /** `core` and `client` replace the participant's own (the console's preview serves both itself). */
  constructor(me: RuntimeMe, sessionId: string, core?: TrackingCore, client: ParticipantApi = api) {
    this.session = sessionOf(me, sessionId);
    this.core = core ?? new TrackingCore({ sessionId, win: window });
    this.data = new DataClient(client, sessionId, this.core);
  }

  /**
   * Sends every buffered event and waits, at most `timeoutMs`, until the server has acknowledged them
   * all. True when nothing is left to send (the study's completion redirect waits for this).
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.core.tracker.flush();
    await this.core.transport.idle(timeoutMs);
    return this.core.outbox.size === 0;
  }

  dispose(): void {
    this.core.dispose();
  }

  /**
   * Ends tracking for good (the participant left the study and their data was erased): nothing more
   * is sent or kept, and what waited to be sent is forgotten, in memory and in the browser's storage.
   */
  end(): void {
    this.core.dispose();
    this.core.outbox.discard();
  }
}

function sessionOf(me: RuntimeMe, sessionId: string): PlatformSession {
  return {
    sessionId,
    userId: me.user_id,
    loginId: me.login_id,
    experimentId: me.experiment_id,
    experimentStatus: me.experiment_status,
    groupId: me.group_id,
    algorithmConfig: me.algorithm_config,
    uiConfig: me.ui_config,
  };
}

let current: PlatformRuntime | null = null;

/**
 * The runtime for this participant and session: created on first use, kept while the session lasts,
 * replaced when the session changes (another participant joined in this tab). The participant facts
 * are refreshed from `me` on each call (a reload of the page picks up group changes).
 */
export function platformRuntime(me: RuntimeMe, sessionId: string): PlatformRuntime {
  if (current && current.session.sessionId === sessionId && current.session.userId === me.user_id) {
    current.session = sessionOf(me, sessionId);
    return current;
  }
  current?.dispose();
  current = new PlatformRuntime(me, sessionId);
  return current;
}

/** The runtime of the current session, if a participant page created one. */
export function currentRuntime(): PlatformRuntime | null {
  return current;
}
