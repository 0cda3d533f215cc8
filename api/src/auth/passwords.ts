import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { Semaphore } from "../system/semaphore.ts";

/** scrypt cost parameters (N = 2^15, r = 8, p = 1: about 32 MB and 50-100 ms per hash on this class of machine). */
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const MAX_MEM = 64 * 1024 * 1024;

/**
 * Password hashes computed at once (api.md "Trust boundaries": at most 4 password checks). Each holds
 * one of libuv's 4 threads (by default) for 50-100 ms and 32 MB; two leave the other threads to file
 * reads and DNS however many sign-ins arrive together. The others wait their turn.
 */
const PASSWORD_HASHES_AT_ONCE = 2;
const hashing = new Semaphore(PASSWORD_HASHES_AT_ONCE);

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise((resolve, reject) => {
        scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, { N: n, r, p, maxmem: MAX_MEM }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      }),
  );
}

/** Hashes a password as `scrypt$N$r$p$salt$key` (base64url), self-describing so parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return ["scrypt", N, R, P, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Checks a password against a stored hash in constant time. A malformed hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A random password for the generated first admin: 20 characters, about 119 bits. */
export function generatePassword(): string {
  return randomBytes(15).toString("base64url");
}

/** A fixed hash used to spend the same time on unknown usernames as on wrong passwords. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
