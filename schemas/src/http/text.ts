/**
 * False for text PostgreSQL cannot store (in text or jsonb): a NUL character or an unpaired surrogate.
 * Such text is bad input, never a database error.
 */
export const isStorableText = (s: string): boolean => !s.includes("\u0000") && s.isWellFormed();
