/** Problem entry of a validation failure: which field, and what is wrong with it. */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
}

/**
 * An error with an HTTP status and a stable snake_case code, rendered as api.md's error body by the
 * error middleware. Anything thrown that is not an HttpError becomes a generic 500.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    status: number,
    code: string,
    message: string,
    details?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (code: string, message: string, details?: unknown) =>
  new HttpError(400, code, message, details);
export const unauthorized = (message = "Sign in first.") => new HttpError(401, "unauthorized", message);
export const forbidden = (code = "forbidden", message = "This credential may not do that.") =>
  new HttpError(403, code, message);
/**
 * 404 `not_found`; `details.resource` is the API's name of the resource, `noun` the word its message
 * uses for researchers (a `group` is an "arm" in the console).
 */
export const notFound = (resource: string, noun = resource) =>
  new HttpError(404, "not_found", `No ${noun} with that id or key.`, { resource });
export const conflict = (code: string, message: string, details?: unknown) =>
  new HttpError(409, code, message, details);
export const payloadTooLarge = (limitBytes: number) =>
  new HttpError(413, "payload_too_large", `The request body exceeds ${limitBytes} bytes.`, {
    limit: limitBytes,
  });
/** 416: a Range request outside the file (`headers`: the Content-Range naming the file's size). */
export const rangeNotSatisfiable = (headers: Record<string, string> = {}) =>
  new HttpError(
    416,
    "range_not_satisfiable",
    "The requested range lies outside the file.",
    undefined,
    headers,
  );
export const unprocessable = (code: string, message: string, details?: unknown) =>
  new HttpError(422, code, message, details);
export const tooManyRequests = (retryAfterSeconds: number, message: string) =>
  new HttpError(
    429,
    "too_many_requests",
    message,
    { retry_after_seconds: retryAfterSeconds },
    {
      "Retry-After": String(retryAfterSeconds),
    },
  );

/** 422 `validation_failed` naming the first offending field, with every problem in `details.problems`. */
export const validationFailed = (problems: readonly FieldProblem[]) => {
  const first = problems[0];
  const message = first ? `${first.field || "body"} ${first.message}` : "The request is invalid.";
  return new HttpError(422, "validation_failed", message, { field: first?.field ?? "", problems });
};
