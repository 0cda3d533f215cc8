import { describe, expect, it } from "vitest";
import { ApiClient, ApiError, errorFromResponse, importContentType } from "./api.ts";

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
    expect(await new ApiClient(respond(200, '{"username":"admin"}')).adminMe()).toEqual({
      username: "admin",
    });
    expect(await new ApiClient(respond(204, "")).logout()).toBeUndefined();
  });

  it("throws a typed ApiError for a non-2xx answer", async () => {
    const client = new ApiClient(respond(401, '{"error":{"code":"unauthorized","message":"Sign in."}}'));
    await expect(client.adminMe()).rejects.toMatchObject({
      name: "ApiError",
      status: 401,
      code: "unauthorized",
    });
  });

  it("reports an unreachable server as status 0", async () => {
    const client = new ApiClient((async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch);
    await expect(client.adminMe()).rejects.toMatchObject({ status: 0, code: "network_error" });
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

describe("importContentType", () => {
  it("picks the content type from the file extension", () => {
    expect(importContentType(new File(["a"], "videos.CSV"))).toBe("text/csv");
    expect(importContentType(new File(["[]"], "videos.json"))).toBe("application/json");
    expect(importContentType(new File(["x"], "videos.txt"))).toBeNull();
  });
});
