/**
 * The outcome of an operation whose failures are expected (bad input, a missing pet, a spent quota).
 * Bugs and I/O failures are thrown instead, so a `Result` never hides them.
 */
export type Result<T, E> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export const ok = <T>(value: T): { readonly ok: true; readonly value: T } => ({ ok: true, value });
export const fail = <E>(error: E): { readonly ok: false; readonly error: E } => ({ ok: false, error });
