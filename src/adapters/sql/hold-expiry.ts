/**
 * The domain's `hasLapsed` in SQL, the one place a statement writes the instant a hold lapses.
 * `expiresAt` is the column (qualified as the statement needs, `h.expires_at_ms`), `now` the time as
 * the statement passes it: a parameter of any dialect (`?`, `@now`, `$2`, `$2::bigint`).
 */
export const lapsedBy = (expiresAt: string, now: string): string => `${expiresAt} <= ${now}`;

/** The complement of `lapsedBy`: a hold whose time is not up at `now` still sets its quantity aside. */
export const heldAt = (expiresAt: string, now: string): string => `${expiresAt} > ${now}`;
