// The load generator's process (issue 36, `feedlab simulate`), forked by the CLI (run-generator.ts):
// it takes the plan from the first IPC message, runs the participants, and reports over IPC. A process
// of its own, so that the pauses of the process that prints and checks never set the tail it reports.
import { runGenerator } from "./generator.ts";
import type { GeneratorMessage, LoadPlan } from "./protocol.ts";

/** The last message's write: the process exits once it is done. */
let written: Promise<void> = Promise.resolve();
const post = (m: GeneratorMessage) => {
  if (!process.connected) return;
  written = new Promise((resolve) => process.send?.(m, () => resolve()));
};

// The CLI went away (Ctrl-C, killed): stop at once.
process.once("disconnect", () => process.exit(1));
process.once("message", (plan: LoadPlan) => {
  runGenerator(plan, post).then(
    // Exit once the last report is written: the connection pool's sockets must not keep the process up.
    async (outcome) => {
      await written;
      process.exit(outcome === "done" ? 0 : 3);
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
});
