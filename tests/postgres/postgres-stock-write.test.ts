import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresUnavailableError } from '../../src/adapters/postgres/postgres-database.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import type { IdempotencyClaim, StockCommand } from '../../src/domain/stock-command.js';
import { eventually } from '../redis/redis-fixture.js';
import { aPet } from '../support/mothers.js';
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
