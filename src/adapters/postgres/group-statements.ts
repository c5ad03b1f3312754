import { heldAt, lapsedBy } from '../sql/hold-expiry.js';
import { countWrites } from './inventory-stamp.js';
import { prepared } from './postgres-database.js';

/*
 * The statements of a group of writes (stock and reservation writes alike), all in one transaction: the
 * first round trip locks what the group names and reads it, the second applies every decision in one
 * statement and commits. Each statement is sent without waiting for the one before it (a pipelined
 * connection), and each later one takes its snapshot once the one before has ended: what is read is read
 * under the locks. Every transaction that locks takes keys before pets, each in a fixed order (keys
 * sorted, pets by id), so none waits on another in a cycle.
 */

/**
 * The pets a group names: $1 its orders' pets (bigint[]), and the pets of the reservations its commits
 * and releases name ($2, text[]), which never change. The sub-select runs once, then the primary key
 * finds each id.
 */
const GROUP_PETS = 'id = ANY($1::bigint[] || ARRAY(SELECT pet_id FROM reservations WHERE id = ANY($2::text[])))';

/** GROUP_PETS for a group that settles no reservation (most groups): its pets are $1 alone. */
const STOCK_PETS = 'id = ANY($1::bigint[])';

/**
 * Locks the keys of the group's reserves ($1: sorted, text[]) until the transaction ends, one after the
 * other in that order: a reserve of a key elsewhere waits for this group, and counts the holds it adds.
 * Only reserves take these locks, and always before any pet's.
 */
export const GROUP_LOCK_KEYS = prepared(
  'group_lock_keys',
  "SELECT count(pg_advisory_xact_lock(hashtextextended('holds ' || k, 0))) FROM unnest($1::text[]) AS k",
);

/**
 * Locks the group's pets (see GROUP_PETS) in id order until the transaction ends, answering their ids:
 * two groups (of this instance or another) that share pets wait for each other but never in a cycle.
 */
export const GROUP_LOCK_ROWS = prepared(
  'group_lock_rows',
  `SELECT id FROM pets WHERE ${GROUP_PETS} ORDER BY id FOR NO KEY UPDATE`,
);

/** GROUP_LOCK_ROWS for a group that commits or releases nothing ($1 its pets). */
export const GROUP_LOCK_PETS = prepared(
  'group_lock_pets',
  `SELECT id FROM pets WHERE ${STOCK_PETS} ORDER BY id FOR NO KEY UPDATE`,
);

/**
 * Takes each claim's advisory lock for the transaction ($1 scopes, $2 keys, text[]), answering, in
 * their order, whether it was had: a claim another session holds is a write under way elsewhere, which
 * the core answers "in use". A space joins scope and key: an Idempotency-Key is visible ASCII and a key
 * id has none, so no two claims join alike.
 */
export const GROUP_LOCK_CLAIMS = prepared(
  'group_lock_claims',
  `SELECT pg_try_advisory_xact_lock(hashtextextended(c.scope || ' ' || c.key, 0))
   FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(scope, key, n) ORDER BY c.n`,
);

/**
 * The records stored for the claims ($1 scopes, $2 keys), one row a claim in their order (nulls where
 * none is). Read after the locks: any record stored later is stored by a holder of the lock, this one.
 */
export const GROUP_READ_CLAIMS = prepared(
  'group_read_claims',
  `SELECT r.fingerprint, r.expires_at_ms, r.outcome
   FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS c(scope, key, n)
   LEFT JOIN idempotency_records r ON r.scope = c.scope AND r.key = c.key ORDER BY c.n`,
);

/**
 * The group's pets as locked (see GROUP_PETS): id, quantity, status, version, held and, for a pet that
 * holds anything, its reservations stored as held whose time is up by $3 (the latest of the group's
 * command times; id, quantity, created and expiry times), from which the core tells which lapsed at
 * each command's time. Holds still running at $3 are running at every earlier command time too, so they
 * are not read (the partial index by pet and expiry): a write's cost does not grow with a pet's live
 * holds. Unknown ids have no row.
 */
const readRows = (pets: string, latest: string): string =>
  `SELECT p.id, p.quantity, p.status, p.version, p.held, CASE WHEN p.held > 0 THEN (
       SELECT json_agg(json_build_array(h.id, h.quantity, h.created_at_ms, h.expires_at_ms))
       FROM reservations h WHERE h.pet_id = p.id AND h.state = 'held' AND ${lapsedBy('h.expires_at_ms', latest)}
     ) END
   FROM pets p WHERE ${pets}`;

export const GROUP_READ_ROWS = prepared('group_read_rows', readRows(GROUP_PETS, '$3::bigint'));

/** GROUP_READ_ROWS for a group that commits or releases nothing: $1 its pets, $2 the latest command time. */
export const GROUP_READ_PETS = prepared('group_read_pets', readRows(STOCK_PETS, '$2::bigint'));

/** The reservations the group's commits and releases name ($1, text[]), as stored, with their keys. */
export const GROUP_READ_RESERVATIONS = prepared(
  'group_read_reservations',
  `SELECT id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor FROM reservations
   WHERE id = ANY($1::text[])`,
);

/**
 * The holds of the reserves' keys ($1, text[]) still running after $2 (the earliest reserve's time),
 * read under the keys' locks, one row a key that has any: how many run past $3 (the latest command's
 * time, so at every reserve's), and the id and expiry of the others, few or none, from which each
 * reserve counts its key's holds at its own time (the partial index by key and expiry).
 */
export const GROUP_KEY_HOLDS = prepared(
  'group_key_holds',
  `SELECT actor, count(*) FILTER (WHERE ${heldAt('expires_at_ms', '$3::bigint')})::int,
     json_agg(json_build_array(id, expires_at_ms)) FILTER (WHERE ${lapsedBy('expires_at_ms', '$3::bigint')})
   FROM reservations WHERE actor = ANY($1::text[]) AND state = 'held' AND ${heldAt('expires_at_ms', '$2::bigint')}
   GROUP BY actor`,
);

/**
 * $1 change ids, ascending, taken once the rows are locked: each pet's changes are numbered in the
 * order they commit, as the feed and the deliveries of a pet need.
 */
export const GROUP_CHANGE_IDS = prepared(
  'group_change_ids',
  "SELECT nextval(pg_get_serial_sequence('stock_changes', 'id')) FROM generate_series(1, $1::int)",
);

/**
 * The group's transaction id, read before its COMMIT is sent: should the answer to COMMIT be lost, the
 * commit log says by this id whether the group was saved (see GroupCommit).
 */
export const GROUP_XACT_ID = prepared('group_xact_id', 'SELECT pg_current_xact_id()::text');

/**
 * Applies every decision of the group, under the locks the reads took. Parameters, one array element a
 * written pet (its last state in the group): $1 ids, $2 versions as locked, $3 versions, $4 quantities,
 * $5 statuses, $6 held; one a stored reservation whose state the group moved off held (a commit, a
 * release, a lapse): $7 ids, $8 states; one a new reservation: $9 ids, $10 pets, $11 quantities, $12
 * states, $13 created and $14 expiry times, $15 keys; one a change: $16 ids, $17 pet ids, $18 and $19
 * quantities and statuses before, $20 and $21 after, $22 actors, $23 times, $24 kinds, $25 reasons; one
 * a claim to store: $26 scopes, $27 keys, $28 fingerprints, $29 outcomes, $30 expiry times; $31 the
 * stamp's stripe. Answers how many rows each part wrote: the caller checks them, and throws (rolling
 * everything back) on a mismatch, which would be a bug.
 */
export const GROUP_WRITE = prepared(
  'group_write',
  `WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::int[], $5::text[], $6::int[])
    AS i(pet_id, read_version, version, quantity, status, held)),
updated AS (
  UPDATE pets p SET quantity = i.quantity, status = i.status, version = i.version, held = i.held FROM input i
  WHERE p.id = i.pet_id AND p.version = i.read_version
  RETURNING p.id),
moved AS (
  UPDATE reservations r SET state = m.state FROM unnest($7::text[], $8::text[]) AS m(id, state)
  WHERE r.id = m.id AND r.state = 'held'
  RETURNING 1),
reserved AS (
  INSERT INTO reservations (id, pet_id, quantity, state, created_at_ms, expires_at_ms, actor)
  SELECT * FROM unnest($9::text[], $10::bigint[], $11::int[], $12::text[], $13::bigint[], $14::bigint[], $15::text[])
  RETURNING 1),
recorded AS (
  INSERT INTO stock_changes
    (id, pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason)
  SELECT * FROM unnest($16::bigint[], $17::bigint[], $18::int[], $19::text[], $20::int[], $21::text[], $22::text[],
    $23::bigint[], $24::text[], $25::text[])
  RETURNING 1),
claimed AS (
  INSERT INTO idempotency_records (scope, key, fingerprint, outcome, expires_at_ms)
  SELECT * FROM unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::bigint[])
  ON CONFLICT (scope, key) DO UPDATE
    SET fingerprint = excluded.fingerprint, outcome = excluded.outcome, expires_at_ms = excluded.expires_at_ms
  RETURNING 1),
counted AS (${countWrites('(SELECT count(*) FROM updated)', '$31')} AND EXISTS (SELECT FROM updated))
SELECT (SELECT count(*) FROM updated)::int, (SELECT count(*) FROM moved)::int, (SELECT count(*) FROM reserved)::int,
  (SELECT count(*) FROM recorded)::int, (SELECT count(*) FROM claimed)::int`,
);
