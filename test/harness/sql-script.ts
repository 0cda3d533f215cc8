/**
 * The statements of an SQL script (a pg_dump, say), split at the semicolons that end them: those
 * outside quoted strings, quoted identifiers, dollar-quoted bodies and comments. Empty statements
 * are left out.
 */
export function sqlStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  while (i < n) {
    const c = script[i] as string;
    if (c === "-" && script[i + 1] === "-") {
      const end = script.indexOf("\n", i);
      i = end < 0 ? n : end + 1;
    } else if (c === "'" || c === '"') {
      // A doubled quote inside is an escaped quote: the loop simply enters a new string after it.
      const end = script.indexOf(c, i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === "$") {
      const tag = /^\$[A-Za-z_0-9]*\$/.exec(script.slice(i, i + 64))?.[0];
      if (tag) {
        const end = script.indexOf(tag, i + tag.length);
        i = end < 0 ? n : end + tag.length;
      } else i++;
    } else if (c === ";") {
      const statement = script.slice(start, i).trim();
      if (statement.replace(/--[^\n]*/g, "").trim() !== "") out.push(statement);
      i++;
      start = i;
    } else i++;
  }
  const rest = script
    .slice(start)
    .replace(/--[^\n]*/g, "")
    .trim();
  if (rest !== "") out.push(script.slice(start).trim());
  return out;
}
