// A vitest reporter for `npm test` (scripts/test-suite.mjs): writes each test file's wall time and end
// state to $FEEDLAB_TEST_TIMES (JSON), so the suite can print its slowest files and tell a file whose
// worker process died (state still "pending" when the run ends) from a file whose tests failed.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface FileTime {
  readonly file: string;
  /** When the file started (epoch ms), to line its minutes up with a machine's load over the run. */
  readonly start: number;
  /** From the file's start to its end in the run; for a file that never ended, to the run's end. */
  readonly ms: number;
  /** "passed", "failed", "skipped", or "pending" for a file whose worker exited before it ended. */
  readonly state: string;
}

export default class SuiteReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly ended = new Map<string, number>();

  onTestModuleStart(module: TestModule): void {
    this.started.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.set(module.moduleId, Date.now());
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const out = process.env.FEEDLAB_TEST_TIMES;
    if (!out) return;
    const now = Date.now();
    const files: FileTime[] = modules.map((m) => ({
      file: relative(process.cwd(), m.moduleId),
      start: this.started.get(m.moduleId) ?? now,
      ms: (this.ended.get(m.moduleId) ?? now) - (this.started.get(m.moduleId) ?? now),
      state: m.state(),
    }));
    writeFileSync(out, JSON.stringify(files, null, 1));
  }
}
