import type { Locator } from "playwright-core";

// Reading a <video> element's clock from outside the page, for the browser journey.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the playhead reaches `seconds`; false when it did not within the time. */
export async function waitForTime(player: Locator, seconds: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await player.evaluate((v: HTMLVideoElement) => v.currentTime)) >= seconds) return true;
    await sleep(100);
  }
  return false;
}

/** Waits until the video has played `seconds` in all (its played ranges), and answers how much it has. */
export async function waitForPlayed(player: Locator, seconds: number, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  const played = () =>
    player.evaluate((v: HTMLVideoElement) => {
      let sum = 0;
      for (let i = 0; i < v.played.length; i++) sum += v.played.end(i) - v.played.start(i);
      return sum;
    });
  let now = await played();
  while (now < seconds && Date.now() < until) {
    await sleep(150);
    now = await played();
  }
  return now;
}

export async function waitForEnded(player: Locator, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await player.evaluate((v: HTMLVideoElement) => v.ended)) return true;
    await sleep(100);
  }
  return false;
}
