// The power analysis's resampling thread (power.runner.ts): each message is one job, answered with
// its ResamplingAnswer under the same id, or the error's message (the thread lives on).
import { parentPort } from "node:worker_threads";
import { resample } from "./power.resampling.ts";
import type { FromPowerWorker, ToPowerWorker } from "./power.runner.ts";

parentPort?.on("message", ({ id, job }: ToPowerWorker) => {
  let reply: FromPowerWorker;
  try {
    reply = { id, answer: resample(job) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
