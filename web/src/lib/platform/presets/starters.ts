/**
 * "Start from a preset" (the code track): each bundled preset page as one self-contained TSX module a
 * researcher can copy into the editor and change. A preset page is split over the page's file, its
 * style family's parts and the shared helpers; the starter inlines the three, keeps only the imports
 * of the platform namespace (merged per module), and exports the device variant's page as default.
 * Pure string work, so the console builds a starter from the preset files as they ship.
 */

/** The source files of one preset page. */
export interface PresetFiles {
  /** `shared.tsx`: helpers every family uses. */
  readonly shared: string;
  /** `<family>-parts.tsx`: the family's stylesheet and parts. */
  readonly parts: string;
  /** `<family>-<page>.tsx`: the page, whose default export holds one layout per device. */
  readonly page: string;
}

const IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)";?\n/gm;

interface Imports {
  /** Per module, its names (`type X` for type-only ones), in first-seen order. */
  readonly byModule: Map<string, Set<string>>;
}

/** Takes the imports out of a file: platform ones are collected, relative ones dropped. */
function withoutImports(source: string, imports: Imports): string {
  return source.replace(IMPORT, (_all, typeOnly: string | undefined, names: string, from: string) => {
    if (from.startsWith(".")) return "";
    const set = imports.byModule.get(from) ?? new Set<string>();
    for (const raw of names.split(",")) {
      const name = raw.trim();
      if (name) set.add(typeOnly && !name.startsWith("type ") ? `type ${name}` : name);
    }
    imports.byModule.set(from, set);
    return "";
  });
}

/** A name imported both as a type and as a value needs only the value import. */
function importLines(imports: Imports): string {
  return [...imports.byModule]
    .map(([from, names]) => {
      const values = new Set([...names].filter((n) => !n.startsWith("type ")));
      const kept = [...names].filter((n) => !(n.startsWith("type ") && values.has(n.slice(5))));
      return `import { ${kept.join(", ")} } from "${from}";`;
    })
    .join("\n");
}

/** Drops a file's leading doc comment (the starter has its own header). */
const withoutHeader = (source: string) => source.replace(/^\s*\/\*\*[\s\S]*?\*\/\n/, "");

/** Makes a helper file's exports local declarations of the starter. */
const unexported = (source: string) => source.replace(/^export (?=(?:function|const|type|interface) )/gm, "");

/** One preset page's variant as a self-contained module (see the module comment). */
export function starterSource(
  files: PresetFiles,
  preset: string,
  page: "feed" | "watch",
  device: string,
): string {
  const imports: Imports = { byModule: new Map() };
  const shared = unexported(withoutImports(withoutHeader(files.shared), imports));
  const parts = unexported(withoutImports(withoutHeader(files.parts), imports));
  const pageBody = withoutImports(withoutHeader(files.page), imports)
    .replace(/^export default \{/m, "const variants = {")
    .trimEnd();
  return `// Started from the ${preset} preset's ${page} page. It imports only from the platform namespace
// (@feedlab/data, @feedlab/surfaces, @feedlab/blocks, react); its default export is the page.
${importLines(imports)}

// Shared helpers of the presets.
${shared.trim()}

// The style family's stylesheet and parts.
${parts.trim()}

// The page.
${pageBody.trim()}

export default variants.${device};
`;
}
