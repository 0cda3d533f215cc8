/** The part of the Frictionless JavaScript library (no published types) the package tests use. */
declare module "datapackage" {
  interface Resource {
    readonly descriptor: { readonly format?: string; readonly [key: string]: unknown };
    read(options: { keyed?: boolean; cast?: boolean; relations?: boolean }): Promise<unknown[]>;
  }
  interface Package {
    readonly valid: boolean;
    readonly errors: readonly Error[];
    readonly resourceNames: readonly string[];
    getResource(name: string): Resource;
  }
  const datapackage: {
    Package: { load(descriptor: string, options?: { basePath?: string }): Promise<Package> };
  };
  export default datapackage;
}
