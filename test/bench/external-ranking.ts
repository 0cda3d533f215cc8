import { createHash } from "node:crypto";

/** The ranking the slow external recommender of the external benchmark answers for a user. */
export function expectedIds(userId: string, videoIds: readonly string[], limit: number): string[] {
  const h = createHash("sha256").update(userId).digest();
  const start = h.readUInt32BE(0) % videoIds.length;
  const step = 1 + (h.readUInt32BE(4) % 97);
  return Array.from({ length: limit }, (_, i) => videoIds[(start + i * step) % videoIds.length] as string);
}
