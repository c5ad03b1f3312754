import type { SqlValue } from './postgres-database.js';

/** The most rows one multi-row statement carries: PostgreSQL takes at most 65,535 parameters a statement. */
export const ROWS_PER_STATEMENT = 1_000;

/**
 * The `VALUES` list of a multi-row INSERT, with one cast per column (`bigint`, `integer`, or '' for
 * none): `($1::bigint, $2), ($3::bigint, $4)`, and the parameters in that order. One statement a
 * thousand rows instead of one a row: a round trip to the server costs more than the row.
 */
export function valuesList(
  rows: readonly (readonly SqlValue[])[],
  casts: readonly string[],
): { readonly text: string; readonly values: SqlValue[] } {
  const values: SqlValue[] = [];
  const tuples = rows.map((row) => {
    const placeholders = row.map((value, column) => {
      values.push(value);
      const cast = casts[column] ?? '';
      return cast === '' ? `$${values.length}` : `$${values.length}::${cast}`;
    });
    return `(${placeholders.join(', ')})`;
  });
  return { text: tuples.join(', '), values };
}

/** Splits `items` into consecutive slices of at most ROWS_PER_STATEMENT. */
export function* slices<T>(items: readonly T[]): Iterable<readonly T[]> {
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) {
    yield items.slice(start, start + ROWS_PER_STATEMENT);
  }
}

/** `items` as a stream of one batch: an add of a list is the add of a stream that holds it. */
export async function* oneBatch<T>(items: readonly T[]): AsyncIterable<readonly T[]> {
  yield items;
}
