import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresUnavailableError } from '../../src/adapters/postgres/postgres-database.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { ReservationCommand } from '../../src/domain/reservation-outcome.js';
import type { IdempotencyClaim, StockCommand } from '../../src/domain/stock-command.js';
import { aCommand, adjustBy, aPet, ManualClock, setTo } from '../../src/testing/index.js';
import { eventually } from '../redis/redis-fixture.js';
import { hasPostgresServer, usePostgresServer } from './postgres-fixture.js';

const AT = Date.UTC(2026, 5, 1, 12, 0, 0);

const claimOf = (key: string, fingerprint = 'PATCH /v1/inventory/1 {"quantity":7}'): IdempotencyClaim => ({
  scope: 'key_a',
  key,
  fingerprint,
  expiresAtMs: AT + 86_400_000,
});

const keyedWrite = (q: number, claim: IdempotencyClaim, pet = 1n): StockCommand => ({
  orders: [{ kind: 'set', petId: petId(pet), quantity: quantity(q) }],
  actor: 'key_a',
  atMs: AT,
  idempotency: claim,
});

/** The advisory lock a write holds on its claim while under way, as another instance of the service takes it. */
const CLAIM_LOCK = "hashtextextended($1 || ' ' || $2, 0)";

/** A session of its own on the database, as another instance of the service has. */
async function otherSession(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Whether a session other than the store's can take the claim's lock now (and lets it go at once). */
async function claimIsFree(client: pg.Client, claim: IdempotencyClaim): Promise<boolean> {
  const { rows } = await client.query<{ taken: boolean }>(`SELECT pg_try_advisory_lock(${CLAIM_LOCK}) AS taken`, [
    claim.scope,
    claim.key,
  ]);
  if (rows[0]?.taken !== true) return false;
  await client.query(`SELECT pg_advisory_unlock(${CLAIM_LOCK})`, [claim.scope, claim.key]);
  return true;
}

describe.skipIf(!hasPostgresServer)('a stock write over PostgreSQL and its claim', () => {
  const postgres = usePostgresServer();

  it('answers idempotency_key_in_use while a write on another instance holds the key, and writes once it is let go', async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1)]);
    const other = await otherSession(storage.url);
    try {
      const claim = claimOf('k1');
      await other.query(`SELECT pg_advisory_lock(${CLAIM_LOCK})`, [claim.scope, claim.key]);
      expect(await storage.inventory.write(keyedWrite(7, claim))).toMatchObject({
        ok: false,
        error: { code: 'idempotency_key_in_use' },
      });
      expect(await storage.inventory.get(petId(1n))).toMatchObject({ version: 1 });
      await other.query(`SELECT pg_advisory_unlock(${CLAIM_LOCK})`, [claim.scope, claim.key]);
      expect(await storage.inventory.write(keyedWrite(7, claim))).toMatchObject({
        ok: true,
        value: { replayed: false },
      });
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('lets go of the key after every answer: a write, a replay, a reused key, a refusal', async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1)]);
    const other = await otherSession(storage.url);
    try {
      const written = claimOf('k1');
      expect(await storage.inventory.write(keyedWrite(7, written))).toMatchObject({ ok: true });
      expect(await claimIsFree(other, written)).toBe(true);
      expect(await storage.inventory.write(keyedWrite(7, written))).toMatchObject({ value: { replayed: true } });
      expect(await claimIsFree(other, written)).toBe(true);
      const reused = claimOf('k1', 'another request');
      expect(await storage.inventory.write(keyedWrite(8, reused))).toMatchObject({
        error: { code: 'idempotency_key_reused' },
      });
      expect(await claimIsFree(other, reused)).toBe(true);
      const refused = claimOf('k2');
      expect(await storage.inventory.write(keyedWrite(7, refused, 99n))).toMatchObject({
        error: { code: 'pet_not_found' },
      });
      expect(await claimIsFree(other, refused)).toBe(true);
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('lets go of the key when its write fails: the connection that held it is closed, and a retry writes', async () => {
    const storage = await postgres.storage({ statementTimeoutMs: 300 });
    await storage.pets.addAll([aPet(1)]);
    const other = await otherSession(storage.url);
    try {
      const claim = claimOf('k1');
      await other.query('BEGIN');
      await other.query('LOCK TABLE stock_changes IN ACCESS EXCLUSIVE MODE');
      const failed = await storage.inventory.write(keyedWrite(7, claim)).catch((error: unknown) => error);
      expect(failed).toBeInstanceOf(PostgresUnavailableError);
      await other.query('ROLLBACK');
      await eventually('the key is let go', () => claimIsFree(other, claim));
      expect(await storage.inventory.write(keyedWrite(7, claim))).toMatchObject({
        ok: true,
        value: { replayed: false },
      });
      expect(await storage.changes.history(petId(1n), { limit: 10 })).toHaveLength(1);
    } finally {
      await other.end();
      await storage.close();
    }
  });

  it('keeps every entry of a batch exact through the array parameters: quotes, backslashes, commas, braces, NULL', async () => {
    const storage = await postgres.storage();
    try {
      await storage.pets.addAll([aPet(1), aPet(2), aPet(3)]);
      const reasons = ['say "hi", {then} \\ go', 'NULL', 'ünïcödé ✓'];
      const result = await storage.inventory.write({
        orders: reasons.map((reason, i) => ({
          kind: 'set',
          petId: petId(BigInt(i + 1)),
          quantity: quantity(i),
          reason,
        })),
        actor: 'key_a',
        atMs: AT,
      });
      expect(result).toMatchObject({ ok: true });
      for (const [i, reason] of reasons.entries()) {
        expect(await storage.changes.history(petId(BigInt(i + 1)), { limit: 10 })).toMatchObject([
          { reason, after: { quantity: i } },
        ]);
      }
    } finally {
      await storage.close();
    }
  });
});

const MINUTE = 60_000;

/** A reserve of `q` of pet 1 at AT, held for `ttlMs`, by another key. */
const reserveOf = (q: number, ttlMs = 15 * MINUTE): ReservationCommand => ({
  reservation: { kind: 'reserve', petId: petId(1n), quantity: quantity(q), ttlMs },
  actor: 'key_b',
  atMs: AT,
});

/** How many sessions of the database other than `client`'s wait for a lock. */
async function waiting(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ waiting: number }>(
    `SELECT count(*)::integer AS waiting FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return rows[0]?.waiting ?? 0;
}

/** Whether a session of the database other than `client`'s waits for a lock. */
const someoneWaits = async (client: pg.Client): Promise<boolean> => (await waiting(client)) > 0;

describe.skipIf(!hasPostgresServer)("a stock write over PostgreSQL and its pet's reservations", () => {
  const postgres = usePostgresServer();

  // The other session holds the stamp's counter of pet 1, which the write's statement moves: the write
  // has locked and read the pet, and the reserve is sent meanwhile. It waits for the write's commit
  // and is decided on what the write left, so neither is lost.
  it.each([
    ['a set to 1', setTo(1n, 1), 1],
    ['an adjustment of -4', adjustBy(1n, -4), 1],
  ])(
    'makes a reservation sent while %s holds the pet wait for it, then decides it on what was written',
    async (_, order, left) => {
      const storage = await postgres.storage({ clock: new ManualClock(AT) });
      await storage.pets.addAll([aPet(1, { quantity: quantity(5) })]);
      const other = await otherSession(storage.url);
      try {
        await other.query('BEGIN');
        await other.query('UPDATE inventory_stamps SET writes = writes WHERE stripe = 1');
        const write = storage.inventory.write(aCommand([order], { atMs: AT }));
        await eventually("the write's statement waits", () => someoneWaits(other));
        const reserve = storage.inventory.writeReservation(reserveOf(3));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await other.query('ROLLBACK');
        expect(await write).toMatchObject({ ok: true });
        expect(await reserve).toMatchObject({ ok: false, error: { code: 'insufficient_stock' } });
        expect(await storage.inventory.get(petId(1n))).toEqual({
          item: { petId: 1n, quantity: left, status: 'available', reserved: 0 },
          version: 2,
        });
        expect(await storage.changes.history(petId(1n), { limit: 10 })).toHaveLength(1);
      } finally {
        await other.end();
        await storage.close();
      }
    },
  );

  it('marks the holds that lapsed by its time expired in its own statement, and counts each in the version', async () => {
    const storage = await postgres.storage();
    await storage.pets.addAll([aPet(1, { quantity: quantity(5) })]);
    const other = await otherSession(storage.url);
    try {
      const lapsing = await storage.inventory.writeReservation(reserveOf(2, MINUTE));
      expect(await storage.inventory.writeReservation(reserveOf(1, 10 * MINUTE))).toMatchObject({ ok: true });
      if (!lapsing.ok) throw new Error('the first reserve was refused');
      const result = await storage.inventory.write(aCommand([setTo(1n, 1)], { atMs: AT + MINUTE }));
      expect(result).toMatchObject({ ok: true, value: { entries: [{ reserved: 1, version: 5 }] } });
      const { rows } = await other.query<{ state: string; held: number; version: string }>(
        `SELECT r.state, p.held, p.version::text FROM reservations r JOIN pets p ON p.id = r.pet_id WHERE r.id = $1`,
        [lapsing.value.reservation.id],
      );
      expect(rows).toEqual([{ state: 'expired', held: 1, version: '5' }]);
    } finally {
      await other.end();
      await storage.close();
    }
  });
});
