import { prepared } from './postgres-database.js';

/*
 * The statements of a stock write over PostgreSQL, each run in a transaction of its own (autocommit):
 * one plain read of what the command names, and one conditional statement that applies what the core
 * decided only if nothing it read has moved since. Each is built from named parts, so that a column, a
 * condition or a table written with the change is one local edit.
 */

/** The key of a claim's advisory lock, from its scope and key parameters. A space joins them: an Idempotency-Key is visible ASCII and a key id has none, so no two claims join alike. */
const claimLockKey = (scope: string, key: string): string => `hashtextextended(${scope} || ' ' || ${key}, 0)`;

/**
 * The read: one row an order, in the orders' order, with the entry (nulls for an unknown pet), a change
 * id taken from the sequence, the pet's held count and, for a pet that holds anything (held > 0, a few
 * pets), its reservations stored as held whose time is up at the command's time (parameter `now`), as
 * JSON arrays of id, quantity, created and expiry times: the core marks them expired. Those still held
 * are not read (the partial index by pet and expiry): `held` less the lapsed is what the pet reserves.
 * The ids are taken after the statement's snapshot, and a write applies only on the versions that
 * snapshot read: a pet's changes are numbered in the order they commit. The row and its holds are of
 * one snapshot.
 */
const holds = (now: string): string => `CASE WHEN p.held > 0 THEN (
    SELECT json_agg(json_build_array(h.id, h.quantity, h.created_at_ms, h.expires_at_ms))
    FROM reservations h WHERE h.pet_id = p.id AND h.state = 'held' AND h.expires_at_ms <= ${now}::bigint
  ) END`;
const readColumns = (now: string): string => `p.quantity, p.status, p.version,
  nextval(pg_get_serial_sequence('stock_changes', 'id')), p.held, ${holds(now)}`;

/** A command's pets, numbered `n` in the orders' order ($1: their ids, bigint[]). */
const ORDERED_PETS = 'unnest($1::bigint[]) WITH ORDINALITY AS o(id, n) LEFT JOIN pets p ON p.id = o.id';

/**
 * A command's one pet ($1: its id, bigint). Most writes name one pet, and for this shape PostgreSQL
 * keeps one generic plan after its first five reads. Over unnest it expects 10 rows: on the benchmark's
 * table of 100 pets a plan for the actual one-element array was always cheaper, so every read was
 * planned again (about 130 µs of a read's 300 to 400 on the server, by EXPLAIN ANALYZE).
 */
const ONE_PET = '(SELECT $1::bigint AS id, 1::bigint AS n) o LEFT JOIN pets p ON p.id = o.id';

/** The read of a command without a claim ($2: the command's time). */
const read = (name: string, pets: string) => prepared(name, `SELECT ${readColumns('$2')} FROM ${pets} ORDER BY o.n`);

/**
 * The read of a command with a claim ($5: the command's time): also, on the first row, the record
 * stored for the claim ($2 scope, $3 key) and, when $4 is true, whether this session took the claim's advisory lock. The lock is
 * a session's: held from this read until the write that stores the claim's outcome releases it, so a
 * retry on any instance meanwhile is told "in use" instead of waiting.
 */
const readClaimed = (name: string, pets: string) =>
  prepared(
    name,
    `SELECT ${readColumns('$5')}, r.fingerprint, r.expires_at_ms, r.outcome,
       CASE WHEN o.n = 1 AND $4::boolean THEN pg_try_advisory_lock(${claimLockKey('$2', '$3')}) END
     FROM ${pets} LEFT JOIN idempotency_records r ON o.n = 1 AND r.scope = $2 AND r.key = $3
     ORDER BY o.n`,
  );

export const READ = read('stock_read', ORDERED_PETS);
export const READ_ONE = read('stock_read_one', ONE_PET);
export const READ_CLAIMED = readClaimed('stock_read_claimed', ORDERED_PETS);
export const READ_ONE_CLAIMED = readClaimed('stock_read_one_claimed', ONE_PET);

/** Lets go of a claim's lock when the write that holds it stores nothing (a replay, a reused key). */
export const UNLOCK_CLAIM = prepared('stock_unlock_claim', `SELECT pg_advisory_unlock(${claimLockKey('$1', '$2')})`);

/**
 * Locks the rows of the orders' pets in id order until the transaction ends: the last resort of a write
 * whose rows kept moving, which then reads and writes inside that transaction.
 */
export const LOCK_ROWS = prepared(
  'stock_lock_rows',
  'SELECT id FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE',
);

/**
 * The parameters of the write, one array element per written entry: $1 change ids, $2 pet ids, $3 the
 * versions read (as stored), $4 the next versions, $5 quantities, $6 statuses, $7 and $8 the quantities
 * and statuses read, $9 kinds, $10 reasons, $11 what each pet holds after the write; then $12 the ids of
 * the written pets' holds that lapsed, $13 actor, $14 at_ms, $15 the stamp's stripe. With a claim: $16
 * scope, $17 key, $18 fingerprint, $19 outcome, $20 expires_at_ms, $21 the expiry of the record read
 * (null when none was). A write of one entry takes $1 to $11 as single values instead (`one`): no array
 * is built, sent or parsed, and PostgreSQL plans for one row, which cost its server about 75 µs less a
 * write than the arrays (measured on this machine, read and write).
 */
const PARAMETERS = ['bigint', 'bigint', 'bigint', 'bigint', 'int', 'text', 'int', 'text', 'text', 'text', 'int'].map(
  (type, index) => `$${index + 1}::${type}`,
);

const inputOf = (one: boolean): string => {
  const rows = one
    ? `(VALUES (${PARAMETERS.join(', ')}))`
    : `unnest(${PARAMETERS.map((parameter) => `${parameter}[]`).join(', ')})`;
  return `input AS (
  SELECT * FROM ${rows}
    AS i(change_id, pet_id, read_version, version, quantity, status, before_quantity, before_status, kind, reason,
         held))`;
};

/**
 * Every row still at the version read, locked in id order (so two writes never wait on each other in a
 * cycle). A row another write holds is waited for, then checked again as that write left it: under READ
 * COMMITTED a locking read sees the newest row, not the statement's snapshot. The version covers the
 * pet's holds too: every change of them (a reserve, commit or release, a lapsed hold marked) is made
 * under the row's lock and moves the version, so a row still at the version read still holds what the
 * read found, and none of its holds can change until this statement ends.
 */
const LOCKED = `locked AS (
  SELECT p.id FROM pets p JOIN input i ON p.id = i.pet_id AND p.version = i.read_version
  ORDER BY p.id FOR NO KEY UPDATE OF p)`;

/** Whether every row matched: the write is all or nothing. */
const READY = 'ready AS (SELECT count(*) = (SELECT count(*) FROM input) AS ok FROM locked)';

/**
 * The claim's outcome, stored only when every row matched: a new record, or in place of the expired one
 * read (the same expiry), never over a record another write stored meanwhile.
 */
const CLAIMED = `claimed AS (
  INSERT INTO idempotency_records (scope, key, fingerprint, outcome, expires_at_ms)
  SELECT $16::text, $17::text, $18::text, $19::text, $20::bigint FROM ready WHERE ok
  ON CONFLICT (scope, key) DO UPDATE
    SET fingerprint = excluded.fingerprint, outcome = excluded.outcome, expires_at_ms = excluded.expires_at_ms
    WHERE idempotency_records.expires_at_ms = $21::bigint
  RETURNING 1)`;

/**
 * The rows, each with what it holds once its lapsed holds are marked; the version the core gave counts
 * the marking (see Lapse in src/domain/reservation.ts).
 */
const updated = (gate: string): string => `updated AS (
  UPDATE pets p SET quantity = i.quantity, status = i.status, version = i.version, held = i.held FROM input i
  WHERE p.id = i.pet_id AND p.version = i.read_version AND ${gate}
  RETURNING p.id)`;

/** The written pets' lapsed holds, marked expired with the write (as a conversational write marked them first). */
const LAPSED = `lapsed AS (
  UPDATE reservations SET state = 'expired'
  WHERE id = ANY($12::text[]) AND state = 'held' AND pet_id IN (SELECT id FROM updated))`;

const RECORDED = `recorded AS (
  INSERT INTO stock_changes
    (id, pet_id, before_quantity, before_status, after_quantity, after_status, actor, at_ms, kind, reason)
  SELECT i.change_id, i.pet_id, i.before_quantity, i.before_status, i.quantity, i.status, $13::text, $14::bigint, i.kind, i.reason
  FROM input i JOIN updated u ON u.id = i.pet_id
  RETURNING id)`;

/** The stamp's counter (see inventory-stamp.ts): one row a write, so that two writes never lock two counters in opposite orders. */
const COUNTED = `counted AS (
  UPDATE inventory_stamps SET writes = writes + (SELECT count(*) FROM updated)
  WHERE stripe = $15::smallint AND EXISTS (SELECT FROM updated))`;

const withParts = (parts: readonly string[], last: string): string => `WITH ${parts.join(',\n')}\n${last}`;

const write = (name: string, one: boolean) =>
  prepared(
    name,
    withParts(
      [inputOf(one), LOCKED, READY, updated('(SELECT ok FROM ready)'), LAPSED, RECORDED, COUNTED],
      'SELECT ok FROM ready',
    ),
  );

const writeClaimed = (name: string, one: boolean) =>
  prepared(
    name,
    withParts(
      [
        inputOf(one),
        LOCKED,
        READY,
        CLAIMED,
        updated('(SELECT ok FROM ready) AND EXISTS (SELECT FROM claimed)'),
        LAPSED,
        RECORDED,
        COUNTED,
      ],
      `SELECT done, CASE WHEN done THEN pg_advisory_unlock(${claimLockKey('$16', '$17')}) END
       FROM (SELECT ok AND EXISTS (SELECT FROM claimed) AS done FROM ready) applied`,
    ),
  );

/** The write of a command without a claim; answers one row: whether it applied (false: a version moved). */
export const WRITE = write('stock_write', false);
export const WRITE_ONE = write('stock_write_one', true);

/**
 * The write of a command with a claim, which also stores the claim's outcome (a refused command writes
 * that alone) and, once applied, lets go of the claim's lock. Answers whether it applied: false when a
 * version moved or another write stored the claim first.
 */
export const WRITE_CLAIMED = writeClaimed('stock_write_claimed', false);
export const WRITE_ONE_CLAIMED = writeClaimed('stock_write_one_claimed', true);
