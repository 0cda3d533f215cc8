import { redirect } from "@sveltejs/kit";
import type { PageLoad } from "./$types";

/** The layouts' old addresses (`/admin/templates`, `/new`, `/{id}`) lead to the same pages under `/admin/layouts`. */
export const load = (({ params, url }) => {
  redirect(308, `/admin/layouts${params.rest ? `/${params.rest}` : ""}${url.search}`);
}) satisfies PageLoad;
