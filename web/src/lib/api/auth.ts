/** Admin sign-in, sign-out and password (api.md "Admin authentication"). */
import { setConsoleCredential } from "../admin/console-credential.ts";
import type { AdminSignedIn, AdminUser, LoginRequest } from "../types.ts";
import type { ApiClient } from "./client.ts";

export const authApi = {
  /** Signs in; the answer's console credential goes on every later request of this page. */
  async login(client: ApiClient, body: LoginRequest): Promise<AdminUser> {
    const signedIn = await client.request<AdminSignedIn>("POST", "/api/v1/auth/login", { body });
    setConsoleCredential(signedIn.console_token);
    return { username: signedIn.username, role: signedIn.role };
  },

  async logout(client: ApiClient): Promise<void> {
    await client.request("POST", "/api/v1/auth/logout");
    setConsoleCredential(null);
  },

  /** The signed-in admin; throws a 401 `ApiError` when there is none. */
  me: (client: ApiClient) => client.request<AdminUser>("GET", "/api/v1/auth/me"),

  changePassword: (client: ApiClient, body: { current_password: string; new_password: string }) =>
    client.request<void>("POST", "/api/v1/auth/password", { body }),
};
