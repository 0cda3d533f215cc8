const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when `value` is a UUID (a template id among UI keys, an id from outside). No imports: the
 * participant runtime uses it without pulling the schemas in.
 */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);
