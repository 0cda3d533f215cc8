import { type CompileResult, compileWith, MAX_TEMPLATE_SOURCE_CHARS } from "@feedlab/schemas";
import * as esbuild from "esbuild-wasm";

export const MAX_SOURCE_CHARS = MAX_TEMPLATE_SOURCE_CHARS;

let ready: Promise<void> | null = null;

/** Compiles a code template on the server (esbuild's WebAssembly module starts once per process). */
export async function compileTemplate(source: string): Promise<CompileResult> {
  ready ??= esbuild.initialize({});
  await ready;
  return compileWith(esbuild, source);
}
