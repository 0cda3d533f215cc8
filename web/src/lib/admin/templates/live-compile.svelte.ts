import type { CompileResult } from "@feedlab/schemas/ui/compile.ts";
import { compileInBrowser } from "./compiler.ts";

/**
 * Compiles a source with the server's compiler each time it changes, once typing pauses for
 * `delayMs`; a result for an older source is dropped. Create it while a component initialises.
 */
export class LiveCompile {
  /** The latest result, and how long it took. */
  result = $state.raw<CompileResult | null>(null);
  ms = $state(0);
  /** The last module that compiled: the preview keeps showing it through a mistake. */
  compiled = $state<string | null>(null);

  constructor(source: () => string, delayMs: number) {
    $effect(() => {
      const text = source();
      let stale = false;
      const timer = setTimeout(async () => {
        const started = performance.now();
        const result = await compileInBrowser(text);
        if (stale) return;
        this.ms = performance.now() - started;
        this.result = result;
        if (result.ok) this.compiled = result.code;
      }, delayMs);
      return () => {
        stale = true;
        clearTimeout(timer);
      };
    });
  }
}
