import type { Database } from 'better-sqlite3';

/** Carries a refusal out of a better-sqlite3 transaction, which rolls back only when its body throws. */
class Refusal<E> extends Error {
  constructor(readonly reason: E) {
    super('the write was refused');
  }
}

/**
 * Wraps `write` in an IMMEDIATE transaction that is rolled back when `write` returns a refusal (an
 * expected failure such as a duplicate id) and committed when it returns `undefined`. Errors that
 * `write` throws roll back too, and are thrown on.
 */
export function allOrNothing<I, E>(db: Database, write: (input: I) => E | undefined): (input: I) => E | undefined {
  const transaction = db.transaction((input: I): void => {
    const refusal = write(input);
    if (refusal !== undefined) throw new Refusal(refusal);
  });
  return (input) => {
    try {
      transaction.immediate(input);
      return undefined;
    } catch (error) {
      if (error instanceof Refusal) return error.reason as E;
      throw error;
    }
  };
}
