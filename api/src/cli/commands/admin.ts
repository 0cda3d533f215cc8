import { parseArgs } from "node:util";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "@feedlab/schemas/http/enums.ts";
import { ACCOUNT_ROLES, type AccountRole } from "@feedlab/schemas/http/roles.ts";
import { openStore } from "../../app/clients.ts";
import { createAuthService } from "../../auth/auth.service.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, out, UsageError } from "../command.ts";

const USAGE = "admin create [--username NAME] [--password PW] [--role owner|researcher]";

const isAccountRole = (role: string): role is AccountRole =>
  (ACCOUNT_ROLES as readonly string[]).includes(role);

export const admin: Command = {
  name: "admin",
  usage: USAGE,
  summary: [
    "Add an account (a password is generated when none is given); an owner unless --role researcher,",
    "as whoever runs the server's commands runs the server",
  ],
  run: async (args: string[], config: Config) => {
    const [sub, ...rest] = args;
    if (sub !== "create") throw new UsageError(`Usage: feedlab ${USAGE}`);
    const { values } = parseArgs({
      args: rest,
      options: { username: { type: "string" }, password: { type: "string" }, role: { type: "string" } },
    });
    const role = values.role ?? "owner";
    if (!isAccountRole(role)) throw new UsageError(`--role must be one of ${ACCOUNT_ROLES.join(", ")}`);
    const username = values.username ?? config.adminUsername;
    if (!new RegExp(ADMIN_USERNAME_PATTERN).test(username))
      throw new UsageError("--username must be 1-64 characters of letters, digits, . _ @ -");
    if (values.password !== undefined && values.password.length < ADMIN_PASSWORD_MIN_LENGTH)
      throw new UsageError(`--password must be at least ${ADMIN_PASSWORD_MIN_LENGTH} characters`);
    const store = await openStore(config, createLogger("warn", config.logFormat));
    try {
      // The same as the console's Accounts page: a password generated when none is given, shown once.
      const added = await createAuthService(store.deps)
        .addAdmin(username, values.password, role)
        .catch((err: unknown) => {
          if ((err as { code?: string }).code === "duplicate_username")
            throw new UsageError(`An admin named "${username}" already exists.`);
          throw err;
        });
      out(`Created admin "${username}" (${role}).`);
      if (added.password) out(`Password: ${added.password}   (shown only this once)`);
    } finally {
      await store.close();
    }
  },
};
