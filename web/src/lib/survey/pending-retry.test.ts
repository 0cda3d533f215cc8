import { describe, expect, it } from "vitest";
import { ApiError } from "../participant-api.ts";
import { FAILURES_BEFORE_NOTICE, isRetriable, retryDelayMs } from "./pending-retry.ts";

describe("the retries of a session's first pending check", () => {
  it("waits 1, 2, 4 and 8 s after the first four failures, then 10 s each time", () => {
    expect([1, 2, 3, 4, 5, 6, 20].map(retryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
  });

  it("tells the participant after the first try and its four retries failed", () => {
    expect(FAILURES_BEFORE_NOTICE).toBe(5);
    // By then the retries have waited 15 s in all.
    const waited = Array.from({ length: FAILURES_BEFORE_NOTICE - 1 }, (_, i) => retryDelayMs(i + 1));
    expect(waited.reduce((a, b) => a + b, 0)).toBe(15_000);
  });

  it("retries when the server was not reached, failed, or asked to be asked later", () => {
    const failures = [
      new ApiError(0, "network_error", "Could not reach the server."),
      new ApiError(500, "internal_error", "Internal error."),
      new ApiError(502, "http_502", "Bad gateway."),
      new ApiError(503, "http_503", "Unavailable."),
      new ApiError(408, "http_408", "Timeout."),
      new ApiError(429, "too_many_requests", "Slow down."),
      // A proxy's page where JSON was expected.
      new ApiError(200, "invalid_response", "The server sent a response that is not JSON."),
      new TypeError("unexpected"),
    ];
    expect(failures.map(isRetriable)).toEqual(failures.map(() => true));
  });

  it("takes any other 4xx as the server's answer", () => {
    const answers = [
      new ApiError(403, "consent_required", "Consent first."),
      new ApiError(403, "experiment_paused", "Paused."),
      new ApiError(401, "http_401", "You are not signed in."),
      new ApiError(400, "validation_error", "Bad session id."),
      new ApiError(404, "not_found", "Not found."),
    ];
    expect(answers.map(isRetriable)).toEqual(answers.map(() => false));
  });
});
