/**
 * A list of uuids passed as one JSON parameter (`[JSON.stringify(ids)]`): `where id in ${JSON_IDS}`
 * takes any number of ids with one bound value, where `whereIn` would bind one per id.
 */
export const JSON_IDS = "(select value::uuid from json_array_elements_text(?::json))";
