import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { parseAllDocuments } from "yaml";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The manifests (deploy/kubernetes/): kustomize bases and overlays. */
const MANIFESTS = path.join(ROOT, "deploy/kubernetes");

/**
 * The Kubernetes release whose API the rendered objects are checked against: the npm package
 * `kubernetes-types` at this exact version (test/package.json) is the API's OpenAPI definitions of that
 * release as TypeScript, one interface per definition, a field optional exactly when the definition
 * does not require it. Its major.minor is the Kubernetes version (the package's versioning rule).
 */
export const KUBERNETES_API_VERSION = "1.30";

/** A rendered object: what every kind has, the rest unread. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [field: string]: unknown;
}

/** A kubectl that can render the manifests, or why there is none. */
export type Renderer =
  | { readonly kubectl: string; readonly version: string; readonly kustomize: string }
  | { readonly missing: string };

/**
 * `kubectl` (FEEDLAB_KUBECTL, else the one on PATH) whose built-in kustomize is v5 or later (kubectl
 * 1.27+), which renders the manifests without a cluster. Debian 12's kubernetes-client is 1.20, whose
 * kustomize (v2) reads none of the manifests' fields.
 */
export function findRenderer(): Renderer {
  const kubectl = process.env.FEEDLAB_KUBECTL || "kubectl";
  const run = spawnSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8" });
  if (run.error || run.status !== 0)
    return { missing: `${kubectl} did not run (${run.error?.message ?? run.stderr.trim()})` };
  const info = JSON.parse(run.stdout) as {
    clientVersion?: { gitVersion?: string };
    kustomizeVersion?: string;
  };
  const version = info.clientVersion?.gitVersion ?? "unknown";
  const kustomize = info.kustomizeVersion ?? "none";
  const major = Number(/^v(\d+)\./.exec(kustomize)?.[1] ?? 0);
  if (major < 5)
    return { missing: `${kubectl} ${version} has kustomize ${kustomize}; v5 (kubectl 1.27+) is needed` };
  return { kubectl, version, kustomize };
}

/** Every kustomization under deploy/kubernetes/ (a folder with a kustomization.yaml), as a path from the repository. */
export function kustomizations(dir = MANIFESTS): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    if (existsSync(path.join(d, "kustomization.yaml"))) found.push(path.relative(ROOT, d));
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(dir);
  return found.sort();
}

/** `kubectl kustomize DIR` (a path from the repository or absolute), parsed; throws with kubectl's message. */
export function render(kubectl: string, dir: string): KubeObject[] {
  const run = spawnSync(kubectl, ["kustomize", path.resolve(ROOT, dir)], { encoding: "utf8" });
  if (run.error || run.status !== 0)
    throw new Error(`kubectl kustomize ${dir} failed: ${run.error?.message ?? run.stderr.trim()}`);
  return parseAllDocuments(run.stdout)
    .map((doc) => doc.toJSON() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** `Kind/name` of an object, for messages. */
export const nameOf = (o: KubeObject) => `${o.kind}/${o.metadata.name}`;

/**
 * The custom resources of the example overlay, whose operators' CRDs no package on the project's
 * registries ships: each checked for its apiVersion, kind, standard metadata and the spec fields its
 * CRD requires (CloudNativePG's api/v1/cluster_types.go, Strimzi's api reference), the rest unchecked.
 */
const CUSTOM_RESOURCES = `
import type { ObjectMeta } from "kubernetes-types/meta/v1";
type Open<T> = T & { [field: string]: unknown };
interface CustomResource<A extends string, K extends string, S> {
  apiVersion: A; kind: K; metadata: ObjectMeta; spec: S; status?: unknown;
}
type Storage = Open<{ type: "ephemeral" | "persistent-claim" | "jbod"; volumes?: Open<{ id: number; type: string }>[] }>;
export type CnpgCluster = CustomResource<"postgresql.cnpg.io/v1", "Cluster", Open<{
  instances: number; storage?: Open<{ size?: string }>; bootstrap?: Open<{ initdb?: Open<{ database?: string; owner?: string }> }>;
}>>;
export type StrimziKafka = CustomResource<"kafka.strimzi.io/v1", "Kafka", Open<{
  kafka: Open<{ listeners: Open<{ name: string; port: number; type: string; tls: boolean }>[] }>;
}>>;
export type StrimziKafkaNodePool = CustomResource<"kafka.strimzi.io/v1", "KafkaNodePool", Open<{
  replicas: number; roles: ("controller" | "broker")[]; storage: Storage;
}>>;
`;

/** The TypeScript type an object is checked against, with the module that exports it. */
function typeOf(o: KubeObject): { module: string; type: string } | null {
  const custom: Record<string, string> = {
    "postgresql.cnpg.io/v1 Cluster": "CnpgCluster",
    "kafka.strimzi.io/v1 Kafka": "StrimziKafka",
    "kafka.strimzi.io/v1 KafkaNodePool": "StrimziKafkaNodePool",
  };
  const cr = custom[`${o.apiVersion} ${o.kind}`];
  if (cr) return { module: "./custom-resources", type: cr };
  // kubernetes-types keeps group `apps` in apps/, `networking.k8s.io` in networking/, the core group in core/.
  const [group, version] = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["core", o.apiVersion];
  const folder = (group as string).split(".")[0] as string;
  const file = path.join(ROOT, "node_modules/kubernetes-types", folder, `${version}.d.ts`);
  return existsSync(file) ? { module: `kubernetes-types/${folder}/${version}`, type: o.kind } : null;
}

/**
 * What is wrong with the objects as Kubernetes would read them: each must be a kind of the pinned
 * Kubernetes API (or one of the example's custom resources), name only the fields its definition has,
 * give every required one, with values of the right types. The check is TypeScript's over the objects
 * written as literals of those types (unknown fields are its excess-property errors), so what
 * `kubectl apply --validate=strict` would refuse for a field is found here without a cluster. One line
 * per problem: `Kind/name: message (the offending line)`.
 */
export function schemaProblems(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  const parts = [`import type * as CR from "./custom-resources";`];
  let lineCount = 1;
  const spans: { object: KubeObject; from: number; to: number }[] = [];
  objects.forEach((o, i) => {
    const t = typeOf(o);
    if (!t) {
      problems.push(
        `${nameOf(o)}: ${o.apiVersion} is not a group/version of Kubernetes ${KUBERNETES_API_VERSION}`,
      );
      return;
    }
    const type = t.module === "./custom-resources" ? `CR.${t.type}` : `import("${t.module}").${t.type}`;
    const text = `export const o${i}: ${type} = ${JSON.stringify(o, null, 2)};`;
    const height = text.split("\n").length;
    spans.push({ object: o, from: lineCount, to: lineCount + height });
    parts.push(text);
    lineCount += height;
  });
  const source = parts.join("\n");
  const lines = source.split("\n");
  const dir = path.join(ROOT, "test/harness");
  const files = new Map([
    [path.join(dir, "rendered-objects.ts"), source],
    [path.join(dir, "custom-resources.ts"), CUSTOM_RESOURCES],
  ]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => files.has(f) || fileExists(f);
  host.readFile = (f) => files.get(f) ?? readFile(f);
  host.getSourceFile = (f, language, ...rest) => {
    const text = files.get(f);
    return text === undefined ? getSourceFile(f, language, ...rest) : ts.createSourceFile(f, text, language);
  };
  const main = path.join(dir, "rendered-objects.ts");
  const program = ts.createProgram([main], options, host);
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const full = ts.flattenDiagnosticMessageText(d.messageText, " ");
    // A missing field's message spells out the whole literal's type: its first 300 characters say which.
    const message = full.length > 300 ? `${full.slice(0, 300)}...` : full;
    if (!d.file || d.start === undefined || d.file.fileName !== main) {
      problems.push(`the check itself: ${message}`);
      continue;
    }
    const line = d.file.getLineAndCharacterOfPosition(d.start).line;
    const span = spans.find((s) => line >= s.from && line < s.to);
    const text = (lines[line] ?? "").trim();
    problems.push(`${span ? nameOf(span.object) : "?"}: ${message} (at ${text})`);
  }
  return problems;
}
