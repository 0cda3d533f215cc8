import { describe, expect, it } from "vitest";
import { kafkaFlags, missingEnv, missingFlags, SERVER_ENV, SERVER_V8_FLAGS } from "./node-settings.mjs";

describe("the launcher's Node flags", () => {
  it("silences kafkajs's timer warning only in Kafka deployments", () => {
    expect(kafkaFlags({ KAFKA_BROKERS: "127.0.0.1:9092" })).toEqual([
      "--disable-warning=TimeoutNegativeWarning",
    ]);
    expect(kafkaFlags({})).toEqual([]);
  });

  it("adds a flag only when neither the command line nor NODE_OPTIONS sets that option", () => {
    expect(missingFlags(SERVER_V8_FLAGS, [], "")).toEqual(["--max-semi-space-size=8", "--no-wasm-code-gc"]);
    expect(missingFlags(SERVER_V8_FLAGS, ["--max-semi-space-size=16"], "")).toEqual(["--no-wasm-code-gc"]);
    expect(missingFlags(SERVER_V8_FLAGS, [], "--max_semi_space_size=16")).toEqual(["--no-wasm-code-gc"]);
    expect(missingFlags(["--disable-warning=TimeoutNegativeWarning"], [], "--inspect")).toHaveLength(1);
  });

  it("sets the server's malloc arenas only when the environment does not", () => {
    expect(missingEnv(SERVER_ENV, {})).toEqual({ MALLOC_ARENA_MAX: "2" });
    expect(missingEnv(SERVER_ENV, { MALLOC_ARENA_MAX: "8" })).toEqual({});
  });
});
