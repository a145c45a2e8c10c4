/** PostgreSQL's SQLSTATE for a unique violation (class 23, integrity constraint violation). */
const UNIQUE_VIOLATION = '23505';

/** Whether `error` is PostgreSQL refusing a duplicate in the unique index or constraint `constraint`. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint_name?: string } | null;
  return e?.code === UNIQUE_VIOLATION && e.constraint_name === constraint;
}
