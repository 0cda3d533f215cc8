import { ErrorBody, wireEventSchemas } from "@feedlab/schemas";
import type { TSchema } from "@sinclair/typebox";
import type { Route } from "./route.ts";

/** Strips TypeBox's symbol keys and fields OpenAPI 3.1 does not need, by a JSON round trip. */
const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

/** Path parameters: their schema from the route's `params` when it declares one, else a UUID. */
function pathParams(path: string, params: TSchema | undefined) {
  const props = (params as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: props[m[1] as string]
      ? plain(props[m[1] as string] as TSchema)
      : { type: "string", format: "uuid" },
  }));
}

function queryParams(schema: TSchema | undefined) {
  if (!schema) return [];
  const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const required = new Set((schema as { required?: string[] }).required ?? []);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: "query",
    required: required.has(name) && (s as { default?: unknown }).default === undefined,
    schema: plain(s),
    description: (s as { description?: string }).description,
  }));
}

/**
 * The OpenAPI 3.1 document of the API, generated from the same route declarations and schemas that
 * validate requests, so the two cannot drift.
 */
export function buildOpenApi(routes: readonly Route[], info: { version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const security =
      r.access === "admin"
        ? // Scripts: the cookie; browsers: the cookie and the console credential.
          [{ adminCookie: [] }, { adminCookie: [], consoleCredential: [] }]
        : r.access === "participant"
          ? [{ participantCookie: [] }]
          : [];
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(r.responses)) {
      responses[status] = {
        description: spec.description,
        ...(spec.schema
          ? { content: { [spec.contentType ?? "application/json"]: { schema: plain(spec.schema) } } }
          : {}),
      };
    }
    const defaults: Record<string, string> = {
      "400": r.setsCookie
        ? "Malformed JSON or wrong content type; insecure_request when session cookies are Secure and the request did not arrive over HTTPS (see FEEDLAB_TRUST_PROXY)"
        : "Malformed JSON or wrong content type",
      "500": "Server fault",
    };
    if (r.body) defaults["422"] = "validation_failed naming the field";
    if (r.access !== "public") {
      defaults["401"] = "No valid credential";
      defaults["403"] =
        r.access === "admin" && r.role !== "researcher"
          ? `A credential of the wrong role; forbidden_role (details.needed: ${r.role}) for an account whose role does not allow this`
          : "A credential of the wrong role";
    }
    for (const [status, description] of Object.entries(defaults)) {
      responses[status] ??= {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    const requestBody = r.body
      ? { required: true, content: { "application/json": { schema: plain(r.body) } } }
      : r.rawBodyTypes
        ? {
            required: true,
            content: Object.fromEntries(["application/json", ...r.rawBodyTypes].map((t) => [t, {}])),
          }
        : r.streamedBody
          ? { required: true, content: { [r.streamedBody.contentType]: { schema: r.streamedBody.schema } } }
          : undefined;
    paths[r.path] ??= {};
    const op = paths[r.path] as Record<string, unknown>;
    op[r.method] = {
      tags: [r.tag],
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      operationId: `${r.method}${r.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      security,
      ...(r.access === "admin" ? { "x-feedlab-role": r.role } : {}),
      ...(r.access === "admin" && r.roleOnBodyExperiment
        ? { "x-feedlab-role-on-experiment": r.roleOnBodyExperiment }
        : {}),
      ...(r.identifies
        ? {
            "x-feedlab-identifies-participants":
              r.identifies === true ? true : "for some requests (see the description)",
          }
        : {}),
      parameters: [...pathParams(r.path, r.params), ...queryParams(r.query)],
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Feedlab API",
      version: info.version,
      description:
        'Run user studies on video feeds. Errors are `{"error": {"code", "message", "details"}}` with a stable snake_case code. Each admin operation states the least role it needs as `x-feedlab-role`: `researcher` (any account), `analyst`, `editor` or `study_owner` (members of the experiment in its path in that role or above, or an account owner; a researcher who is not a member gets 404) and `owner` (account owners). A role that does not allow the operation answers 403 `forbidden_role` with `details.needed`. `x-feedlab-role-on-experiment`: the least role on the experiment a body names as `experiment_id`.',
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        adminCookie: { type: "apiKey", in: "cookie", name: "feedlab_admin" },
        consoleCredential: {
          type: "apiKey",
          in: "header",
          name: "X-Feedlab-Console",
          description:
            "Required with the admin cookie on a browser's request (one with Sec-Fetch-Site) to an admin route, except a top-level GET: the `console_token` of the sign-in's answer, or the console page's `<meta name=\"feedlab-console\">`. Without it such a request answers 403 `console_credential_required`. Clients that are not browsers send the cookie alone.",
        },
        participantCookie: { type: "apiKey", in: "cookie", name: "feedlab_participant" },
      },
      // Each event type's wire form, as GET /api/v1/schemas/events.json serves them.
      schemas: { Error: plain(ErrorBody), ...wireEventSchemas() },
    },
    paths,
  };
}
