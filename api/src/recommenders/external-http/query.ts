/**
 * GET calls: the body fields are sent as query parameters (spec: config.method). The spec leaves the
 * encoding of lists open; Feedlab encodes each top-level field of the substituted body as follows:
 *
 * | value                     | encoding                                                   |
 * |---------------------------|------------------------------------------------------------|
 * | string                    | `name=value`                                               |
 * | number, boolean           | `name=5`, `name=true`                                      |
 * | null (or a missing value) | left out                                                   |
 * | list                      | the name repeated per element, in order: `ids=a&ids=b`;    |
 * |                           | an empty list is left out                                  |
 * | object (or a list inside  | its JSON text: `filter={"lang":"en"}`                      |
 * | a list)                   |                                                            |
 *
 * Repeated names are what most servers read as a list (Express and qs, FastAPI `list[str] = Query()`,
 * Flask `getlist`, Go `url.Values`, Spring `List<String>`). Values are percent-encoded
 * (`application/x-www-form-urlencoded`, as URLSearchParams writes it). Parameters already in the
 * configured URL are kept, and the body's parameters follow them.
 */

function scalar(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** The query parameters of a body, in body order. A body that is not an object gives none. */
export function queryParams(body: unknown): [string, string][] {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item !== null && item !== undefined) out.push([name, scalar(item)]);
    } else {
      out.push([name, scalar(value)]);
    }
  }
  return out;
}

/** The configured URL with the body's fields appended as query parameters. */
export function urlWithQuery(url: string, body: unknown): string {
  const u = new URL(url);
  for (const [name, value] of queryParams(body)) u.searchParams.append(name, value);
  return u.href;
}
