import { afterEach, describe, expect, it } from "vitest";
import { CONSOLE_HEADER, setConsoleCredential } from "../admin/console-credential.ts";
import { ApiError, errorFromResponse } from "../participant-api.ts";
import { authApi } from "./auth.ts";
import { ApiClient } from "./client.ts";
import { experimentsApi } from "./experiments.ts";
import { exportsApi } from "./exports.ts";
import { studyFilesApi } from "./study-files.ts";
import { importContentType } from "./uploads.ts";

describe("errorFromResponse", () => {
  it("reads the api.md error body, its field and the Retry-After header", () => {
    const body = JSON.stringify({
      error: {
        code: "unknown_recommender",
        message: "No such recommender.",
        details: { field: "algorithm_config.feed" },
      },
    });
    const error = errorFromResponse(422, body, "30");
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(422);
    expect(error.code).toBe("unknown_recommender");
    expect(error.message).toBe("No such recommender.");
    expect(error.field).toBe("algorithm_config.feed");
    expect(error.retryAfterSeconds).toBe(30);
  });

  it("falls back to a status message when the body is not the error shape", () => {
    const error = errorFromResponse(502, "<html>Bad gateway</html>", null);
    expect(error.code).toBe("http_502");
    expect(error.field).toBeUndefined();
    expect(error.retryAfterSeconds).toBeNull();
  });
});

describe("ApiClient.request", () => {
  const respond = (status: number, body: string, headers: Record<string, string> = {}) =>
    (async () => new Response(status === 204 ? null : body, { status, headers })) as typeof fetch;

  it("parses JSON and treats 204 as no body", async () => {
    expect(await authApi.me(new ApiClient(respond(200, '{"username":"admin"}')))).toEqual({
      username: "admin",
    });
    expect(await authApi.logout(new ApiClient(respond(204, "")))).toBeUndefined();
  });

  it("throws a typed ApiError for a non-2xx answer", async () => {
    const client = new ApiClient(respond(401, '{"error":{"code":"unauthorized","message":"Sign in."}}'));
    await expect(authApi.me(client)).rejects.toMatchObject({
      name: "ApiError",
      status: 401,
      code: "unauthorized",
    });
  });

  it("reports an unreachable server as status 0", async () => {
    const client = new ApiClient((async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch);
    await expect(authApi.me(client)).rejects.toMatchObject({ status: 0, code: "network_error" });
  });

  it("sends feed queries without empty parameters", async () => {
    let seen = "";
    const client = new ApiClient((async (input: RequestInfo | URL) => {
      seen = String(input);
      return new Response('{"items":[],"has_more":false,"next_offset":null,"recommender":"random"}');
    }) as typeof fetch);
    await client.feed({ session_id: "s-1", limit: 20, after: undefined });
    expect(seen).toBe("/feed?session_id=s-1&limit=20");
  });
});

describe("an admin request", () => {
  afterEach(() => setConsoleCredential(null));

  it("carries the console credential once the page has one, and its path and body", async () => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const client = new ApiClient((async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), init });
      return new Response('{"id":"e-1"}');
    }) as typeof fetch);
    setConsoleCredential("token-1");
    await experimentsApi.update(client, "e/1", { name: "Study" });
    expect(seen[0]?.url).toBe("/api/v1/admin/experiments/e%2F1");
    expect(seen[0]?.init?.method).toBe("PATCH");
    expect(seen[0]?.init?.body).toBe('{"name":"Study"}');
    expect(seen[0]?.init?.headers).toMatchObject({ [CONSOLE_HEADER]: "token-1" });
  });
});

describe("importContentType", () => {
  it("picks the content type from the file extension", () => {
    expect(importContentType(new File(["a"], "videos.CSV"))).toBe("text/csv");
    expect(importContentType(new File(["[]"], "videos.json"))).toBe("application/json");
    expect(importContentType(new File(["x"], "videos.txt"))).toBeNull();
  });
});

describe("download addresses", () => {
  it("asks for pseudonyms in the package only when ticked", () => {
    expect(studyFilesApi.packageUrl("e1", false)).toBe("/api/v1/admin/experiments/e1/package");
    expect(studyFilesApi.packageUrl("e1", true)).toBe(
      "/api/v1/admin/experiments/e1/package?pseudonymize=true",
    );
  });

  it("asks for the spreadsheet-safe variant only of CSV files", () => {
    expect(exportsApi.eventsUrl("e1", "csv", true)).toBe(
      "/api/v1/admin/experiments/e1/events?format=csv&spreadsheet_safe=true",
    );
    expect(exportsApi.eventsUrl("e1", "parquet", true)).toBe(
      "/api/v1/admin/experiments/e1/events?format=parquet",
    );
    expect(exportsApi.participantsUrl("e1")).toBe("/api/v1/admin/experiments/e1/participants?format=csv");
  });
});
