import type * as Esbuild from "esbuild-wasm";

/**
 * The platform namespace a code template may import from (api.md, UI templates). The participant
 * runtime provides each as `globalThis.__feedlab.modules[<specifier>]`: one copy of Preact (as
 * `react`), the surfaces, the data hooks and the blocks.
 */
const PLATFORM_MODULES = [
  "@feedlab/data",
  "@feedlab/surfaces",
  "@feedlab/blocks",
  "react",
  "react/jsx-runtime",
] as const;

/** Where a compile problem is, 1-based line and column as editors count them. */
export interface CompileProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

export type CompileResult =
  | { readonly ok: true; readonly code: string }
  | { readonly ok: false; readonly code: "compile_error"; readonly problems: CompileProblem[] }
  | { readonly ok: false; readonly code: "unknown_import"; readonly imports: string[] }
  | { readonly ok: false; readonly code: "no_default_export" };

/** How a compiled module reads a platform module from the runtime's registry. */
const platformReference = (module: string) => `globalThis.__feedlab.modules[${JSON.stringify(module)}]`;

/** The platform modules a compiled module reads (so a page loads only those). */
export function platformModulesOf(compiled: string): string[] {
  return PLATFORM_MODULES.filter((m) => compiled.includes(platformReference(m)));
}

/**
 * Compiles a code template with an initialised esbuild (esbuild-wasm: the server's and the console
 * editor's are the same package and version): TSX to one self-contained ES module whose platform
 * imports read the runtime's registry, so participants never load the compiler or a second copy of
 * Preact. The server and the editor run exactly this, so they agree on every diagnostic.
 */
export async function compileWith(esbuild: typeof Esbuild, source: string): Promise<CompileResult> {
  const unknown = new Set<string>();
  let result: Esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await esbuild.build({
      stdin: { contents: source, loader: "tsx", sourcefile: "template.tsx" },
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      target: "es2022",
      jsx: "automatic",
      jsxImportSource: "react",
      logLevel: "silent",
      legalComments: "none",
      plugins: [
        {
          name: "feedlab-platform",
          setup(build: Esbuild.PluginBuild) {
            build.onResolve({ filter: /.*/ }, (args: Esbuild.OnResolveArgs) => {
              if ((PLATFORM_MODULES as readonly string[]).includes(args.path))
                return { path: args.path, namespace: "feedlab-platform" };
              unknown.add(args.path);
              return { path: args.path, external: true };
            });
            build.onLoad({ filter: /.*/, namespace: "feedlab-platform" }, (args: Esbuild.OnLoadArgs) => ({
              contents: `module.exports = ${platformReference(args.path)};`,
              loader: "js",
            }));
          },
        },
      ],
    });
  } catch (err) {
    const errors = (err as { errors?: Esbuild.Message[] }).errors;
    if (!errors) throw err;
    return {
      ok: false,
      code: "compile_error",
      problems: errors.map((e) => ({
        line: e.location?.line ?? 1,
        column: (e.location?.column ?? 0) + 1,
        message: e.text,
      })),
    };
  }
  if (unknown.size > 0) return { ok: false, code: "unknown_import", imports: [...unknown] };
  const output = result.outputFiles[0];
  const exports = Object.values(result.metafile.outputs)[0]?.exports ?? [];
  if (!output || !exports.includes("default")) return { ok: false, code: "no_default_export" };
  return { ok: true, code: output.text };
}
