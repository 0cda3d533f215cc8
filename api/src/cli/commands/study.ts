import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { DefinitionProblem, StudyApplied, StudyChange } from "@feedlab/schemas";
import type { Config } from "../../config.ts";
import { AdminClient, type Answer, errorOf, RemoteError, serverUrl } from "../admin-client.ts";
import { type Command, err, out, UsageError } from "../command.ts";
import { downloadMedia, mediaRefs, uploadMissing } from "./study-media.ts";

const USAGE = [
  "study export ID [--format yaml|json] [--out FILE] [--media DIR] [--url URL]",
  "study plan FILE [--experiment ID] [--media DIR] [--url URL]",
  "study apply FILE [--experiment ID] [--media DIR] [--url URL]",
];

/** How many of each resource, in words: "2 arms, 14 videos". */
function tally(changes: readonly StudyChange[]): string {
  const n = new Map<string, number>();
  for (const c of changes) n.set(c.resource, (n.get(c.resource) ?? 0) + 1);
  return [...n].map(([r, k]) => `${k} ${r}${k === 1 ? "" : "s"}`).join(", ");
}

/**
 * One line per change that does something (in columns), what stays as it is in one line, and a
 * count of each action: a pool of thousands of unchanged videos does not bury the one arm that changes.
 */
function printChanges(changes: readonly StudyChange[]): void {
  const shown = changes.filter((c) => c.action !== "unchanged");
  const width = (f: (c: StudyChange) => string) => Math.max(...shown.map((c) => f(c).length), 0);
  const w1 = width((c) => c.resource);
  const w2 = Math.min(
    40,
    width((c) => c.name),
  );
  const w3 = width((c) => c.action);
  for (const c of shown) {
    const detail = c.action === "update" && c.fields ? c.fields.join(", ") : "";
    const why = c.reason ? `${detail ? "; " : ""}${c.reason}` : "";
    out(
      `  ${c.resource.padEnd(w1)}  ${c.name.padEnd(w2)}  ${c.action.padEnd(w3)}  ${detail}${why}`.trimEnd(),
    );
  }
  const unchanged = changes.filter((c) => c.action === "unchanged");
  if (unchanged.length > 0) out(`  Unchanged: ${tally(unchanged)}.`);
  const counts = new Map<string, number>();
  for (const c of changes) counts.set(c.action, (counts.get(c.action) ?? 0) + 1);
  out(
    ["create", "update", "delete", "unchanged", "refused"]
      .filter((a) => counts.has(a))
      .map((a) => `${counts.get(a)} ${a === "unchanged" || a === "refused" ? a : `to ${a}`}`)
      .join(", ") || "Nothing to do.",
  );
}

/** A 422's problems as `FILE:LINE:COLUMN: path: message`, as compilers write them. */
function printProblems(file: string, a: Answer): void {
  const e = errorOf(a);
  const problems = Array.isArray(e?.details) ? (e.details as DefinitionProblem[]) : [];
  if (problems.length === 0) err(`${file}: ${e?.message ?? `HTTP ${a.status}`}`);
  for (const p of problems)
    err(
      `${file}${p.line === undefined ? "" : `:${p.line}:${p.column}`}: ${p.path ? `${p.path}: ` : ""}${p.message}`,
    );
}

function readDocument(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`Cannot read ${file}: ${(e as Error).message}`);
  }
}

/** Answers other than 200 end the command with the server's words (exit 1). */
function failed(file: string, a: Answer, what: string): never {
  const e = errorOf(a);
  if (a.status === 422 && e?.code === "invalid_definition") {
    printProblems(file, a);
    throw new RemoteError(`${file} is not a valid study document: nothing was ${what}.`);
  }
  if (a.status === 409 && Array.isArray(e?.details)) {
    err("Refused, as the console would refuse them:");
    for (const c of e.details as StudyChange[]) err(`  ${c.resource} "${c.name}": ${c.reason}`);
    throw new RemoteError(`Nothing was ${what}.`);
  }
  throw new RemoteError(e?.message ?? `HTTP ${a.status}`);
}

export const study: Command = {
  name: "study",
  usage: USAGE.join("\n  feedlab "),
  summary: [
    "Keep a study as a file: export it, see what applying a file would change, apply it (docs/study-files.md)",
  ],
  run: async (args: string[], config: Config) => {
    const [sub, ...rest] = args;
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        format: { type: "string" },
        out: { type: "string" },
        url: { type: "string" },
        experiment: { type: "string" },
        media: { type: "string" },
      },
    });
    const target = positionals[0];
    if (!target || !["export", "plan", "apply"].includes(sub ?? ""))
      throw new UsageError(`Usage:\n  feedlab ${USAGE.join("\n  feedlab ")}`);
    if (values.format !== undefined && values.format !== "yaml" && values.format !== "json")
      throw new UsageError("--format must be yaml or json");
    const url = serverUrl(values.url, config);
    const text = sub === "export" ? "" : readDocument(target);
    const admin = await AdminClient.signIn(url, config);
    try {
      if (sub === "export") {
        const a = await admin.call(
          "GET",
          `/api/v1/admin/experiments/${encodeURIComponent(target)}/definition?format=${values.format ?? "yaml"}`,
        );
        if (a.status !== 200) throw new RemoteError(errorOf(a)?.message ?? `HTTP ${a.status}`);
        const body = typeof a.body === "string" ? a.body : `${JSON.stringify(a.body, null, 2)}\n`;
        if (values.out) {
          writeFileSync(values.out, body);
          err(`Wrote ${values.out}`);
        } else process.stdout.write(body);
        if (values.media) await downloadMedia(admin, body, values.media);
        else if (mediaRefs(body).length > 0)
          err("The study names uploaded files by content: add --media DIR to save them beside it.");
        return;
      }
      // Files the server lacks go up first (a plan only checks them): applying then finds them by hash.
      if (values.media && sub === "apply") await uploadMissing(admin, text, values.media);
      const body = { definition: text, ...(values.experiment ? { experiment_id: values.experiment } : {}) };
      if (sub === "plan") {
        const a = await admin.call<{ changes: StudyChange[] }>(
          "POST",
          "/api/v1/admin/study-definitions/plan",
          body,
        );
        if (a.status !== 200) failed(target, a, "planned");
        out(
          `Applying ${target} to ${values.experiment ? `experiment ${values.experiment}` : "a new experiment"} on ${url} would:`,
        );
        printChanges(a.body.changes);
        if (a.body.changes.some((c) => c.action === "refused")) process.exitCode = 1;
        return;
      }
      const a = await admin.call<StudyApplied>("POST", "/api/v1/admin/study-definitions/apply", body);
      if (a.status !== 200) failed(target, a, "applied");
      printChanges(a.body.changes);
      out(`Applied: ${url}/admin/experiments/${a.body.experiment_id}`);
    } finally {
      await admin.close();
    }
  },
};
