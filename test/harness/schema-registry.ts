import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server speaking the part of the Confluent Schema Registry API that producers and
 * consumers use (register a subject's schema, fetch a schema by id): the registry is a third-party
 * service, played here by a fake.
 */
export interface FakeRegistry {
  /** Base URL of the API. */
  readonly url: string;
  /** Registered schemas (JSON text) by id. */
  readonly schemas: ReadonlyMap<number, string>;
  /** Subjects and the ids registered under each. */
  readonly subjects: ReadonlyMap<string, number[]>;
  /** Registers a schema as another writer would; answers its id. */
  register(subject: string, schema: object): number;
  close(): Promise<void>;
}

const JSON_TYPE = "application/vnd.schemaregistry.v1+json";

export async function startFakeRegistry(): Promise<FakeRegistry> {
  const schemas = new Map<number, string>();
  const subjects = new Map<string, number[]>();
  let next = 100;
  const register = (subject: string, text: string): number => {
    // Same schema, same id (as the registry does), under any subject.
    const existing = [...schemas].find(([, s]) => s === text)?.[0];
    const id = existing ?? next++;
    schemas.set(id, text);
    const list = subjects.get(subject) ?? [];
    if (!list.includes(id)) list.push(id);
    subjects.set(subject, list);
    return id;
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": JSON_TYPE });
        res.end(JSON.stringify(json));
      };
      const url = new URL(req.url ?? "/", "http://registry");
      const subject = /^\/subjects\/([^/]+)\/versions$/.exec(url.pathname);
      if (req.method === "POST" && subject) {
        const schema = (JSON.parse(body) as { schema?: unknown }).schema;
        if (typeof schema !== "string") return send(422, { error_code: 42201, message: "Invalid schema" });
        return send(200, { id: register(decodeURIComponent(subject[1] as string), schema) });
      }
      const byId = /^\/schemas\/ids\/(\d+)$/.exec(url.pathname);
      if (req.method === "GET" && byId) {
        const schema = schemas.get(Number(byId[1]));
        return schema ? send(200, { schema }) : send(404, { error_code: 40403, message: "Schema not found" });
      }
      send(404, { error_code: 404, message: "HTTP 404 Not Found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    schemas,
    subjects,
    register: (subject, schema) => register(subject, JSON.stringify(schema)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
