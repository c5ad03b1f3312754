import { heldAt, lapsedBy } from '../sql/hold-expiry.js';
import { prepared } from './postgres-database.js';

/*
 * The statements of a group of writes (stock and reservation writes alike), all in one transaction: the
 * first round trip locks what the group names and reads it, the second applies every decision in one
 * statement (groupWrite, in group-effects.ts) and commits. Each statement is sent without waiting for
 * the one before it (a pipelined connection), and each later one takes its snapshot once the one before
 * has ended: what is read is read under the locks. Every transaction that locks takes keys before pets,
 * each in a fixed order (keys sorted, pets by id), so none waits on another in a cycle.
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
 * $1 change ids, ascending (as text), taken once the rows are locked: each pet's changes are numbered in
 * the order they commit, as the feed and the deliveries of a pet need. The sequence is looked up once a
 * statement (an init plan), not once an id. Beside them, the group's transaction id, read before its
 * COMMIT is sent: should the answer to COMMIT be lost, the commit log says by this id whether the group
 * was saved (see GroupedWriter); and the server's start, since after a crash an id never logged can be
 * given again (see transactionEnd).
 */
export const GROUP_CHANGE_IDS_AND_XACT = prepared(
  'group_change_ids_and_xact',
  `SELECT ARRAY(
     SELECT nextval((SELECT pg_get_serial_sequence('stock_changes', 'id')::regclass)) FROM generate_series(1, $1::int)
   )::text[], pg_current_xact_id()::text, pg_postmaster_start_time()::text`,
);
