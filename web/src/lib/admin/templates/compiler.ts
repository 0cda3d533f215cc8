import { type CompileResult, compileWith } from "@feedlab/schemas/ui/compile.ts";
import * as esbuild from "esbuild-wasm";
import wasmURL from "esbuild-wasm/esbuild.wasm?url";

let ready: Promise<void> | null = null;

/**
 * Compiles a code template in the console with the server's compiler (the same esbuild-wasm package
 * and version, the same options): what the editor accepts, the server accepts. esbuild runs in a
 * worker; it loads on the editor page only (about 11 MB of WebAssembly, once).
 */
export async function compileInBrowser(source: string): Promise<CompileResult> {
  ready ??= esbuild.initialize({ wasmURL, worker: true });
  await ready;
  return compileWith(esbuild, source);
}
