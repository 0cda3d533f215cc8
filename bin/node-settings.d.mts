/** Types of bin/node-settings.mjs (plain JavaScript: the launcher runs before TypeScript can). */
export declare const COMPILE_CACHE_DIR: string;
export declare const SERVER_V8_FLAGS: readonly string[];
export declare function kafkaFlags(env?: Record<string, string | undefined>): string[];
export declare function missingFlags(
  flags: readonly string[],
  execArgv?: readonly string[],
  nodeOptions?: string,
): string[];
export declare const SERVER_ENV: Readonly<Record<string, string>>;
export declare function missingEnv(
  wanted: Readonly<Record<string, string>>,
  env?: Record<string, string | undefined>,
): Record<string, string>;
