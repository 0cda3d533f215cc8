import { parseArgs } from "node:util";
import { ADMIN_PASSWORD_MIN_LENGTH, ADMIN_USERNAME_PATTERN } from "@feedlab/schemas/http/enums.ts";
import { ACCOUNT_ROLES, type AccountRole } from "@feedlab/schemas/http/roles.ts";
import { openStore } from "../../app/clients.ts";
import { createAuthService } from "../../auth/auth.service.ts";
import { generatePassword } from "../../auth/passwords.ts";
import type { Config } from "../../config.ts";
import { createLogger } from "../../logger.ts";
import { type Command, out, UsageError } from "../command.ts";

export const admin: Command = {
  name: "admin",
  usage: "admin create [--username NAME] [--password PW] [--role owner|researcher]",
  summary: [
    "Add an account (a password is generated when none is given); an owner unless --role researcher,",
    "as whoever runs the server's commands runs the server",
  ],
  run: async (args: string[], config: Config) => {
    const [sub, ...rest] = args;
    if (sub !== "create")
      throw new UsageError(
        "Usage: feedlab admin create [--username NAME] [--password PW] [--role owner|researcher]",
      );
    const { values } = parseArgs({
      args: rest,
      options: { username: { type: "string" }, password: { type: "string" }, role: { type: "string" } },
    });
    const role = values.role ?? "owner";
    if (!ACCOUNT_ROLES.includes(role as AccountRole))
      throw new UsageError(`--role must be one of ${ACCOUNT_ROLES.join(", ")}`);
    const username = values.username ?? config.adminUsername;
    if (!new RegExp(ADMIN_USERNAME_PATTERN).test(username))
      throw new UsageError("--username must be 1-64 characters of letters, digits, . _ @ -");
    if (values.password !== undefined && values.password.length < ADMIN_PASSWORD_MIN_LENGTH)
      throw new UsageError(`--password must be at least ${ADMIN_PASSWORD_MIN_LENGTH} characters`);
    const store = await openStore(config, createLogger("warn", config.logFormat));
    try {
      const auth = createAuthService(store.deps);
      if (await auth.adminExists(username))
        throw new UsageError(`An admin named "${username}" already exists.`);
      const password = values.password ?? generatePassword();
      await auth.createAdmin(username, password, role as AccountRole);
      out(`Created admin "${username}" (${role}).`);
      if (!values.password) out(`Password: ${password}   (shown only this once)`);
    } finally {
      await store.close();
    }
  },
};
