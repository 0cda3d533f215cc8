import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { HorizontalPodAutoscaler } from "kubernetes-types/autoscaling/v2.js";
import type { ConfigMap, Container, Secret, Service } from "kubernetes-types/core/v1.js";
import type { PodDisruptionBudget } from "kubernetes-types/policy/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../api/src/config.ts";
import { probe } from "../deploy/kubernetes/probe.ts";
import {
  findRenderer,
  KUBERNETES_API_VERSION,
  type KubeObject,
  kustomizations,
  nameOf,
  render,
  schemaProblems,
} from "./harness/kubernetes.ts";
import { freePort } from "./harness/ports.ts";

/**
 * Issue 60, "Beyond one machine": deploy/kubernetes/ renders with kustomize and every object is one the
 * pinned Kubernetes API accepts, offline; and the deployment holds what docs/kubernetes.md promises.
 */

const BASE = "deploy/kubernetes/base";
const EXAMPLE = "deploy/kubernetes/examples/operators";
const ROOT = path.resolve(import.meta.dirname, "..");
const RELEASE = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
  .version;

/** Secrets the example's operators create (CloudNativePG: `<cluster>-app`), with the resource that makes each. */
const OPERATOR_SECRETS: Record<string, string> = { "feedlab-db-app": "Cluster/feedlab-db" };

const renderer = findRenderer();
const missing = "missing" in renderer ? renderer.missing : null;
/**
 * Without kubectl 1.27+ the manifests cannot be rendered: CI must have it (the machine image's
 * Google Cloud kubectl package; .ci/run checks for it), so there the tests fail saying so. Elsewhere
 * they are skipped with the reason; CI covers them.
 */
const skipped = missing !== null && process.env.CI !== "true";
const describeRendered = skipped ? describe.skip : describe;

const of = <T>(objects: readonly KubeObject[], kind: string) =>
  objects.filter((o) => o.kind === kind) as unknown as (T & KubeObject)[];
const containersOf = (d: Deployment): Container[] => d.spec?.template.spec?.containers ?? [];
const roleOf = (d: Deployment) =>
  containersOf(d)[0]
    ?.args?.join(" ")
    .replace(/^start --role /, "");
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describeRendered(
  `deploy/kubernetes, rendered by kubectl and checked against Kubernetes ${KUBERNETES_API_VERSION}` +
    (skipped ? ` (skipped: ${missing}; CI runs these)` : ""),
  () => {
    const rendered = new Map<string, KubeObject[]>();
    const objects = (dir: string) => rendered.get(dir) ?? [];

    beforeAll(() => {
      if ("missing" in renderer)
        throw new Error(
          `The Kubernetes manifests need kubectl 1.27 or later (its kustomize v5) to render: ${renderer.missing}. ` +
            "Install it (Google's `kubectl` Debian package; Debian 12's kubernetes-client is too old) or point FEEDLAB_KUBECTL at one.",
        );
      for (const dir of kustomizations()) rendered.set(dir, render(renderer.kubectl, dir));
    });

    it("finds the base and the example overlay among the kustomizations", () => {
      expect([...rendered.keys()]).toEqual(expect.arrayContaining([BASE, EXAMPLE]));
    });

    it.each(kustomizations())(
      "renders %s into objects that the Kubernetes API or their CRDs accept",
      (dir) => {
        expect(objects(dir).length).toBeGreaterThan(0);
        expect(schemaProblems(objects(dir))).toEqual([]);
      },
    );

    it.each([
      [
        "an unknown field",
        (d: Deployment) => Object.assign(containersOf(d)[0] as Container, { readinesProbe: {} }),
        /^Deployment\/feedlab-api: .*'"readinesProbe"' does not exist in type 'Container'/,
      ],
      [
        "a missing required field",
        (d: Deployment) => delete (d.spec as Partial<NonNullable<Deployment["spec"]>>).selector,
        /^Deployment\/feedlab-api: .*Property 'selector' is missing/,
      ],
      [
        "a value of the wrong type",
        (d: Deployment) => Object.assign(d.spec as object, { revisionHistoryLimit: "5" }),
        /^Deployment\/feedlab-api: Type 'string' is not assignable to type 'number'/,
      ],
    ])("finds %s, naming the object", (_, breakIt, problem) => {
      const broken = structuredClone(objects(BASE));
      breakIt(of<Deployment>(broken, "Deployment")[0] as Deployment);
      expect(schemaProblems(broken)).toEqual([expect.stringMatching(problem)]);
    });

    describe.each([BASE, EXAMPLE])("%s", (dir) => {
      it("gives every container a liveness and a readiness probe; the API's ask /healthz and /readyz", () => {
        for (const d of of<Deployment>(objects(dir), "Deployment"))
          for (const c of containersOf(d)) {
            expect(c.livenessProbe, `${nameOf(d)} ${c.name}`).toBeDefined();
            expect(c.readinessProbe, `${nameOf(d)} ${c.name}`).toBeDefined();
            if (roleOf(d) === "api") {
              expect(c.livenessProbe?.httpGet?.path).toBe("/healthz");
              expect(c.startupProbe?.httpGet?.path).toBe("/healthz");
              expect(c.readinessProbe?.httpGet?.path).toBe("/readyz");
            } else {
              // The roles without HTTP: the probe script (in the image's /app) checks what each needs.
              const needs = roleOf(d) === "projector" ? ["postgres", "kafka"] : ["postgres"];
              const command = ["node", "deploy/kubernetes/probe.ts", ...needs];
              expect(c.readinessProbe?.exec?.command, nameOf(d)).toEqual(command);
              expect(c.livenessProbe?.exec?.command, nameOf(d)).toEqual(command);
            }
          }
      });

      it("runs one Deployment per scale-out role: api, projector and trainer", () => {
        expect(of<Deployment>(objects(dir), "Deployment").map(roleOf).sort()).toEqual([
          "api",
          "projector",
          "trainer",
        ]);
      });

      it("scales the API Deployment with the autoscaler, which alone sets its replica count (two at least)", () => {
        const [hpa, ...others] = of<HorizontalPodAutoscaler>(objects(dir), "HorizontalPodAutoscaler");
        expect(others).toEqual([]);
        const api = of<Deployment>(objects(dir), "Deployment").find((d) => roleOf(d) === "api");
        expect(hpa?.spec?.scaleTargetRef).toEqual({
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: api?.metadata.name,
        });
        expect(api?.spec?.replicas).toBeUndefined();
        expect(hpa?.spec?.minReplicas).toBeGreaterThanOrEqual(2);
      });

      it("runs two projectors, no more than the event topic's partitions, and two trainers (a leader and a standby)", () => {
        const deployments = of<Deployment>(objects(dir), "Deployment");
        const replicas = (role: string) => deployments.find((d) => roleOf(d) === role)?.spec?.replicas;
        const config = of<ConfigMap>(objects(dir), "ConfigMap")[0];
        const partitions = Number(config?.data?.FEEDLAB_KAFKA_PARTITIONS ?? 6);
        expect(replicas("projector")).toBeGreaterThanOrEqual(2);
        expect(replicas("projector")).toBeLessThanOrEqual(partitions);
        // One trainer leads by the advisory lock (trainer/src/leader.ts): more would only wait.
        expect(replicas("trainer")).toBe(2);
      });

      it("has each PodDisruptionBudget select the pods of one Deployment and let a drain evict one of them", () => {
        const deployments = of<Deployment>(objects(dir), "Deployment");
        const hpa = of<HorizontalPodAutoscaler>(objects(dir), "HorizontalPodAutoscaler")[0];
        const budgets = of<PodDisruptionBudget>(objects(dir), "PodDisruptionBudget");
        expect(budgets.length).toBe(deployments.length);
        for (const pdb of budgets) {
          const selected = deployments.filter((d) =>
            matches(pdb.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels),
          );
          expect(selected.map(nameOf), nameOf(pdb)).toHaveLength(1);
          const d = selected[0] as Deployment & KubeObject;
          const pods =
            d.spec?.replicas ??
            (hpa?.spec?.scaleTargetRef.name === d.metadata.name ? hpa?.spec?.minReplicas : 1);
          const evictable =
            pdb.spec?.maxUnavailable !== undefined
              ? Number(pdb.spec.maxUnavailable)
              : (pods ?? 1) - Number(pdb.spec?.minAvailable ?? 0);
          expect(evictable, nameOf(pdb)).toBeGreaterThanOrEqual(1);
        }
      });

      it("sends the Service to the API pods' named HTTP port", () => {
        const api = of<Deployment>(objects(dir), "Deployment").find((d) => roleOf(d) === "api");
        const [service] = of<Service>(objects(dir), "Service");
        expect(matches(service?.spec?.selector, api?.spec?.template.metadata?.labels)).toBe(true);
        const ports = containersOf(api as Deployment).flatMap((c) => c.ports ?? []);
        expect(ports.map((p) => p.name)).toContain(service?.spec?.ports?.[0]?.targetPort);
      });

      it("requests CPU and memory for every container and limits its memory above the request", () => {
        const mebibytes = (q: string | undefined) => {
          const [, n, unit] = /^(\d+)(Mi|Gi)$/.exec(q ?? "") ?? [];
          return Number(n) * (unit === "Gi" ? 1024 : 1);
        };
        for (const d of of<Deployment>(objects(dir), "Deployment"))
          for (const c of containersOf(d)) {
            const { requests, limits } = c.resources ?? {};
            expect(requests?.cpu, nameOf(d)).toBeDefined();
            expect(mebibytes(limits?.memory), nameOf(d)).toBeGreaterThan(mebibytes(requests?.memory));
          }
      });

      it("tags the image with this release's version", () => {
        for (const d of of<Deployment>(objects(dir), "Deployment"))
          expect(containersOf(d)[0]?.image, nameOf(d)).toMatch(
            new RegExp(`:${RELEASE.replaceAll(".", "\\.")}$`),
          );
      });
    });

    it("keeps every secret value out of the base: no Secret object, no literal value of a secret variable", () => {
      const base = objects(BASE);
      expect(of<Secret>(base, "Secret").map(nameOf)).toEqual([]);
      const secretName = /PASSWORD|SECRET|TOKEN|DATABASE_URL|SMTP_URL/;
      for (const config of of<ConfigMap>(base, "ConfigMap"))
        expect(Object.keys(config.data ?? {}).filter((k) => secretName.test(k))).toEqual([]);
      for (const d of of<Deployment>(base, "Deployment"))
        for (const c of containersOf(d))
          expect((c.env ?? []).filter((e) => e.value !== undefined && secretName.test(e.name))).toEqual([]);
    });

    it("refers only to ConfigMaps, Secrets and claims the example renders, or that its operators create", () => {
      const all = objects(EXAMPLE);
      const names = (kind: string) => new Set(all.filter((o) => o.kind === kind).map((o) => o.metadata.name));
      const [configMaps, secrets, claims] = [
        names("ConfigMap"),
        names("Secret"),
        names("PersistentVolumeClaim"),
      ];
      for (const d of of<Deployment>(all, "Deployment")) {
        const pod = d.spec?.template.spec;
        for (const c of pod?.containers ?? []) {
          for (const from of c.envFrom ?? []) {
            if (from.configMapRef) expect(configMaps).toContain(from.configMapRef.name);
            if (from.secretRef) expect(secrets).toContain(from.secretRef.name);
          }
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.secretKeyRef?.name;
            if (ref === undefined || secrets.has(ref)) continue;
            expect(Object.keys(OPERATOR_SECRETS), nameOf(d)).toContain(ref);
            expect(all.map(nameOf)).toContain(OPERATOR_SECRETS[ref]);
          }
        }
        for (const v of pod?.volumes ?? [])
          if (v.persistentVolumeClaim) expect(claims).toContain(v.persistentVolumeClaim.claimName);
      }
    });

    it("points KAFKA_BROKERS at the Strimzi cluster's bootstrap Service and DATABASE_URL at CloudNativePG's Secret", () => {
      const all = objects(EXAMPLE);
      const kafka = all.find((o) => o.kind === "Kafka");
      const spec = kafka?.spec as { kafka: { listeners: { port: number; tls: boolean }[] } } | undefined;
      const listener = spec?.kafka.listeners[0];
      const config = of<ConfigMap>(all, "ConfigMap")[0];
      expect(config?.data?.KAFKA_BROKERS).toBe(`${kafka?.metadata.name}-kafka-bootstrap:${listener?.port}`);
      expect(listener?.tls).toBe(false);
      const cluster = all.find((o) => o.kind === "Cluster");
      for (const d of of<Deployment>(all, "Deployment"))
        expect(
          containersOf(d)[0]?.env?.find((e) => e.name === "DATABASE_URL")?.valueFrom?.secretKeyRef,
        ).toEqual({
          name: `${cluster?.metadata.name}-app`,
          key: "uri",
        });
    });

    it("gives Feedlab an environment its configuration refuses until the placeholders are replaced, and then accepts", () => {
      const all = objects(EXAMPLE);
      const decoded = (s: Secret) =>
        Object.fromEntries(
          Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString()]),
        );
      const env: Record<string, string> = {
        // The image's own (Dockerfile), and what CloudNativePG's Secret holds.
        HOST: "0.0.0.0",
        PORT: "8080",
        DATABASE_URL: "postgresql://feedlab:pw@feedlab-db-rw.feedlab:5432/feedlab",
        ...of<ConfigMap>(all, "ConfigMap")[0]?.data,
        ...decoded(of<Secret>(all, "Secret")[0] as Secret),
      };
      let refused: unknown;
      try {
        loadConfig(env, "/app");
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(ConfigError);
      expect((refused as ConfigError).problems.join("\n")).toMatch(
        /FEEDLAB_ADMIN_PASSWORD[\s\S]*FEEDLAB_METRICS_TOKEN/,
      );
      const replaced = {
        ...env,
        FEEDLAB_ADMIN_PASSWORD: "a".repeat(24),
        FEEDLAB_METRICS_TOKEN: "b".repeat(24),
      };
      expect(loadConfig(replaced, "/app")).toMatchObject({
        kafkaBrokers: ["feedlab-kafka-kafka-bootstrap:9092"],
      });
    });
  },
);

describe("the probe of the roles without HTTP (deploy/kubernetes/probe.ts)", () => {
  const servers: net.Server[] = [];
  const listening = async () => {
    const server = net.createServer((socket) => socket.destroy());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as net.AddressInfo).port;
  };
  afterAll(() => {
    for (const s of servers) s.close();
  });

  it("reports ready when PostgreSQL and one broker of two accept connections", async () => {
    const [postgres, broker, closed] = [await listening(), await listening(), await freePort()];
    const env = {
      DATABASE_URL: `postgres://feedlab:pw@127.0.0.1:${postgres}/feedlab`,
      KAFKA_BROKERS: `127.0.0.1:${closed},127.0.0.1:${broker}`,
    };
    expect(await probe(["postgres", "kafka"], env)).toEqual([]);
  });

  it("reports PostgreSQL not ready, naming its address, when it refuses connections", async () => {
    const closed = await freePort();
    const env = { DATABASE_URL: `postgres://feedlab:pw@127.0.0.1:${closed}/feedlab` };
    expect(await probe(["postgres"], env, 500)).toEqual([
      `postgres: no connection to 127.0.0.1:${closed} within 500 ms`,
    ]);
  });

  it("reports the event log not ready when KAFKA_BROKERS is unset", async () => {
    expect(await probe(["kafka"], {})).toEqual(["kafka: KAFKA_BROKERS is not set"]);
  });
});
