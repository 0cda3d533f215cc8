import type { AuthService } from "./auth.service.ts";
import { generatePassword } from "./passwords.ts";

export interface FirstAdmin {
  readonly username: string;
  /** Set only when the password was generated just now; it is shown once and never stored in clear. */
  readonly generatedPassword: string | null;
  readonly created: boolean;
}

/**
 * Creates the first admin when there is none: from FEEDLAB_ADMIN_USERNAME / FEEDLAB_ADMIN_PASSWORD,
 * generating the password when none is given. An existing admin is left untouched.
 */
export async function ensureFirstAdmin(
  auth: AuthService,
  username: string,
  password: string | null,
): Promise<FirstAdmin> {
  if ((await auth.adminCount()) > 0) return { username, generatedPassword: null, created: false };
  const generated = password === null ? generatePassword() : null;
  // The first account runs the server: an owner.
  await auth.createAdmin(username, password ?? (generated as string), "owner");
  return { username, generatedPassword: generated, created: true };
}
