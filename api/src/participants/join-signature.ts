import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Signed join links (api.md, Participant rights and access): with `FEEDLAB_JOIN_SECRET` set, a join
 * link carries `sig`, the hex HMAC-SHA256 of `{experiment_id}:{login_id}` under the secret, so that a
 * participant cannot join as another by editing the link.
 */
export function joinSignature(secret: string, experimentId: string, loginId: string): string {
  return createHmac("sha256", secret).update(`${experimentId}:${loginId}`, "utf8").digest("hex");
}

/** Whether `sig` is the signature of this experiment and login id (compared in constant time). */
export function validJoinSignature(
  secret: string,
  experimentId: string,
  loginId: string,
  sig: string | undefined,
): boolean {
  if (!sig || !/^[0-9a-fA-F]{64}$/.test(sig)) return false;
  const expected = Buffer.from(joinSignature(secret, experimentId, loginId), "hex");
  return timingSafeEqual(expected, Buffer.from(sig, "hex"));
}
