import dp from "datapackage";

/** A resource's rows as the Frictionless library casts them to its Table Schema. */
export interface CheckedResource {
  readonly name: string;
  readonly format: string | undefined;
  readonly rows: Record<string, unknown>[];
}

/**
 * A Data Package in a folder, checked as the Frictionless JavaScript library (`datapackage`) does:
 * the descriptor against its profile (tabular-data-package), and every CSV resource's rows cast to
 * its Table Schema, foreign keys resolved (a row that does not cast, or a key that references no
 * row, throws). Resources of other formats (the Parquet copies) are listed without reading them.
 */
export async function checkDataPackage(
  dir: string,
): Promise<{ valid: boolean; errors: string[]; resources: CheckedResource[] }> {
  const pkg = await dp.Package.load(`${dir}/datapackage.json`, { basePath: dir });
  const resources: CheckedResource[] = [];
  for (const name of pkg.resourceNames) {
    const resource = pkg.getResource(name);
    const format = resource.descriptor.format;
    if (format === "csv") await resource.read({ keyed: true, cast: true, relations: true });
    // The rows as cast, without the referenced rows standing in for foreign keys.
    const rows =
      format === "csv"
        ? ((await resource.read({ keyed: true, cast: true })) as Record<string, unknown>[])
        : [];
    resources.push({ name, format, rows });
  }
  return { valid: pkg.valid, errors: pkg.errors.map((e) => e.message), resources };
}
