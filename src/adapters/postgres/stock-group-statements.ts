import { prepared } from './postgres-database.js';

/*
 * The statements of a group of stock writes, all in one transaction: the first round trip locks the
 * group's pets and claims and reads them, the second applies every decision in one statement and
 * commits. Each statement is sent without waiting for the one before it (a pipelined connection), and
 * each later one takes its snapshot once the one before has ended: what is read is read under the locks.
 */

/**
 * Locks the group's pets in id order until the transaction ends ($1: their ids, bigint[]), so that two
 * groups (of this instance or another) that share pets wait for each other but never in a cycle.
 */
export const GROUP_LOCK_ROWS = prepared(
  'stock_group_lock_rows',
  'SELECT id FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
);

/**
 * Takes each claim's advisory lock for the transaction ($1 scopes, $2 keys, text[]), answering, in
 * their order, whether it was had: a claim another session holds is a write under way elsewhere, which
 * the core answers "in use". A space joins scope and key, as for every claim lock of the store.
 */
export const GROUP_LOCK_CLAIMS = prepared(
  'stock_group_lock_claims',
  `SELECT pg_try_advisory_xact_lock(hashtextextended(c.scope || ' ' || c.key, 0))
   FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(scope, key, n) ORDER BY c.n`,
);

/**
 * The records stored for the claims ($1 scopes, $2 keys), one row a claim in their order (nulls where
 * none is). Read after the locks: any record stored later is stored by a holder of the lock, this one.
 */
export const GROUP_READ_CLAIMS = prepared(
  'stock_group_read_claims',
  `SELECT r.fingerprint, r.expires_at_ms, r.outcome
   FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(scope, key, n)
   LEFT JOIN idempotency_records r ON r.scope = c.scope AND r.key = c.key ORDER BY c.n`,
);

/**
 * The group's pets as locked ($1: their ids): id, quantity, status, version, held and, for a pet that
 * holds anything, its reservations stored as held whose time is up by $2 (the latest of the group's
 * command times; id, quantity, created and expiry times), from which the core tells which lapsed at
 * each command's time. Holds still running at $2 are running at every earlier command time too, so they
 * are not read (the partial index by pet and expiry): a write's cost does not grow with a pet's live
 * holds. Unknown ids have no row.
 */
export const GROUP_READ_ROWS = prepared(
  'stock_group_read_rows',
  `SELECT p.id, p.quantity, p.status, p.version, p.held, CASE WHEN p.held > 0 THEN (
       SELECT json_agg(json_build_array(h.id, h.quantity, h.created_at_ms, h.expires_at_ms))
       FROM reservations h WHERE h.pet_id = p.id AND h.state = 'held' AND h.expires_at_ms <= $2::bigint
     ) END
   FROM pets p WHERE p.id = ANY($1::bigint[])`,
);

/**
 * $1 change ids, ascending, taken once the rows are locked: each pet's changes are numbered in the
 * order they commit, as the feed and the deliveries of a pet need.
 */
export const GROUP_CHANGE_IDS = prepared(
  'stock_group_change_ids',
  "SELECT nextval(pg_get_serial_sequence('stock_changes', 'id')) FROM generate_series(1, $1::int)",
);

/**
 * Applies every decision of the group, under the locks the read took. Parameters, one array element a
 * written pet (its last state in the group): $1 ids, $2 versions as locked, $3 versions, $4 quantities,
 * $5 statuses, $6 held; $7 ids of lapsed holds; one element a change: $8 ids, $9 pet ids, $10 and $11
 * quantities and statuses before, $12 and $13 after, $14 actors, $15 times, $16 kinds, $17 reasons; one
 * a claim to store: $18 scopes, $19 keys, $20 fingerprints, $21 outcomes, $22 expiry times; $23 the
 * stamp's stripe. Answers the rows it updated, the changes and the claims it stored: the caller checks
 * them, and throws (rolling everything back) on a mismatch, which would be a bug.
 */
export const GROUP_WRITE = prepared(
  'stock_group_write',
  `WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::text[], $6::int[])
    AS i(pet_id, read_version, version, quantity, status, held)),
updated AS (
  UPDATE pets p SET quantity = i.quantity, status = i.status, version = i.version, held = i.held FROM input i
  WHERE p.id = i.pet_id AND p.version = i.read_version
  RETURNING p.id),
lapsed AS (
  UPDATE reservations SET state = 'expired' WHERE id = ANY($7::text[]) AND state = 'held'),
recorded AS (
  INSERT INTO stock_changes
    (id, pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason)
  SELECT * FROM unnest($8::bigint[], $9::bigint[], $10::int[], $11::text[], $12::int[], $13::text[], $14::text[],
    $15::bigint[], $16::text[], $17::text[])
  RETURNING id),
claimed AS (
  INSERT INTO idempotency_records (scope, key, fingerprint, outcome, expires_at_ms)
  SELECT * FROM unnest($18::text[], $19::text[], $20::text[], $21::text[], $22::bigint[])
  ON CONFLICT (scope, key) DO UPDATE
    SET fingerprint = excluded.fingerprint, outcome = excluded.outcome, expires_at_ms = excluded.expires_at_ms
  RETURNING 1),
counted AS (
  UPDATE inventory_stamps SET writes = writes + (SELECT count(*) FROM updated)
  WHERE stripe = $23::smallint AND EXISTS (SELECT FROM updated))
SELECT (SELECT count(*) FROM updated)::int, (SELECT count(*) FROM recorded)::int, (SELECT count(*) FROM claimed)::int`,
);
