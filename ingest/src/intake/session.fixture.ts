import { randomUUID } from "node:crypto";
import type { SessionContext } from "./session.step.ts";

/** A participant's session as the api's lookup answers it (the intake tests' sender). */
export function sessionContext(): SessionContext {
  const owner = randomUUID();
  return {
    session_id: randomUUID(),
    owner,
    user_id: owner,
    login_id: "p-1",
    experiment_id: randomUUID(),
    group_id: randomUUID(),
    algorithm_feed: "popularity",
    algorithm_watch: "random",
    ui_feed: "grid-desktop",
    ui_watch: "none",
  };
}
