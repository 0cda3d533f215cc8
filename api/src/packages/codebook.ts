// codebook.md of a replication package: every column of every table, every event type's payload
// (from the contract's schemas, schemas/src/events/payloads.ts) and what each arm changed.
import { EVENT_TYPES, type Group, PAYLOADS } from "@feedlab/schemas";
import { uiName } from "../events/event-columns.ts";
import type { PackageFile } from "./datapackage.ts";
import type { Table } from "./table.ts";

interface JsonSchema {
  readonly type?: string;
  readonly anyOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly minimum?: number;
  readonly maximum?: number;
}

/** Markdown table cells: pipes escaped, line breaks as spaces. */
const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** A schema's type in words: `string`, `number or null`, `array of object`. */
function typeOf(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeOf).join(" or ");
  if (s.type === "array") return s.items ? `array of ${typeOf(s.items)}` : "array";
  return s.type ?? "any";
}

/**
 * A payload's fields as rows: each property by its path (`environment.viewport.width`,
 * `videos[].videoId`), its type and whether it is required, nested objects and array items included.
 */
function payloadRows(schema: JsonSchema, prefix = ""): string[][] {
  const rows: string[][] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    rows.push([`\`${path}\``, typeOf(prop), required.has(name) ? "required" : "optional"]);
    if (prop.properties) rows.push(...payloadRows(prop, `${path}.`));
    if (prop.items?.properties) rows.push(...payloadRows(prop.items, `${path}[].`));
    for (const option of prop.anyOf ?? [])
      if (option.properties) rows.push(...payloadRows(option, `${path}.`));
  }
  return rows;
}

function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

const json = (v: unknown) => JSON.stringify(v ?? {});

/** What sets an arm apart from the first: each configured field that differs, old -> new. */
function differences(arm: Group, first: Group, templateNames: ReadonlyMap<string, string>): string[] {
  const named = (key: string) => {
    const name = uiName(key, templateNames);
    return name && name !== key ? `${name} (${key})` : key;
  };
  const fields: [string, string, string][] = [
    ["algorithm (feed)", first.algorithm_config.feed, arm.algorithm_config.feed],
    ["algorithm (watch)", first.algorithm_config.watch, arm.algorithm_config.watch],
    ["UI (feed)", named(first.ui_config.feed), named(arm.ui_config.feed)],
    ["UI (watch)", named(first.ui_config.watch), named(arm.ui_config.watch)],
    ["weight", String(first.weight), String(arm.weight)],
    ["recommender_params", json(first.recommender_params), json(arm.recommender_params)],
  ];
  return fields.filter(([, a, b]) => a !== b).map(([what, a, b]) => `${what}: \`${a}\` -> \`${b}\``);
}

/** The codebook of a package, as Markdown. */
export function codebook(options: {
  readonly title: string;
  readonly created: string;
  readonly pseudonymized: boolean;
  readonly tables: readonly Table[];
  readonly files: readonly PackageFile[];
  readonly groups: readonly Group[];
  readonly templateNames: ReadonlyMap<string, string>;
}): string {
  const { tables, groups, templateNames } = options;
  const out: string[] = [
    `# Codebook: ${options.title}`,
    "",
    `Made by Feedlab on ${options.created}${options.pseudonymized ? ", pseudonymized: login ids are pseudonyms and recruiting ids are left out" : ""}.`,
    "Each table is a CSV (UTF-8, comma-separated, CRLF, a header row; an empty cell is a missing value) with a",
    "Parquet copy of the same rows and columns. `datapackage.json` holds the same descriptions as Table Schemas.",
    "",
    "## Files",
    "",
    markdownTable(
      ["file", "what it holds"],
      [
        ...tables.flatMap((t) => [
          [`${t.name}.csv`, t.description],
          [`${t.name}.parquet`, `${t.name}.csv as Parquet`],
        ]),
        ...options.files.map((f) => [f.path, f.description]),
      ],
    ),
    "",
  ];
  for (const t of tables) {
    out.push(`## ${t.name}.csv: ${t.title}`, "", t.description, "");
    if (t.primaryKey) out.push(`Primary key: \`${t.primaryKey.join(", ")}\`.`);
    for (const fk of t.foreignKeys ?? [])
      out.push(
        `\`${fk.fields.join(", ")}\` references \`${fk.reference.resource}.${fk.reference.fields.join(", ")}\`.`,
      );
    out.push(
      "",
      markdownTable(
        ["column", "type", "description"],
        t.fields.map((f) => [
          `\`${f.name}\``,
          f.format && f.type !== "datetime" ? `${f.type} (${f.format})` : f.type,
          f.constraints?.enum ? `${f.description}. One of: ${f.constraints.enum.join(", ")}` : f.description,
        ]),
      ),
      "",
    );
  }
  out.push(
    "## Event types and their payloads",
    "",
    "The `payload` column of events holds the event type's fields as JSON. The fields below are those the",
    "contract requires or names (the intake checks them); payloads may carry more fields, which are kept as sent.",
    "",
  );
  for (const type of EVENT_TYPES) {
    const rows = payloadRows(JSON.parse(JSON.stringify(PAYLOADS[type])) as JsonSchema);
    out.push(
      `### ${type}`,
      "",
      rows.length === 0 ? "No payload fields." : markdownTable(["field", "type", "required"], rows),
      "",
    );
  }
  out.push(
    "## Arms",
    "",
    "Each arm's configuration; after the first, what it changes relative to the first arm.",
    "",
  );
  const first = groups[0];
  for (const [i, g] of groups.entries()) {
    out.push(
      `### ${g.name}`,
      "",
      `- group_id: \`${g.id}\``,
      `- weight: ${g.weight}`,
      `- algorithm: feed \`${g.algorithm_config.feed}\`, watch \`${g.algorithm_config.watch}\``,
      `- UI: feed \`${uiName(g.ui_config.feed, templateNames) ?? g.ui_config.feed}\`, watch \`${
        uiName(g.ui_config.watch, templateNames) ?? g.ui_config.watch
      }\``,
      `- recommender_params: \`${json(g.recommender_params)}\``,
    );
    if (i > 0 && first) {
      const changed = differences(g, first, templateNames);
      out.push(
        `- changes relative to ${first.name}:${changed.length === 0 ? " none" : ""}`,
        ...changed.map((c) => `  - ${c}`),
      );
    }
    out.push("");
  }
  return `${out.join("\n")}\n`;
}
