import type { PostgresDatabase } from './postgres-database.js';

/**
 * The schema, one step a version: step i brings a database from version i to i + 1. A step is never
 * edited once released; a change of schema is a new step at the end.
 *
 * Why it looks as it does (the SQLite schema's choices, in PostgreSQL's types):
 * - `pets.id` is a bigint primary key: an exact int64, and the list is a walk of its index.
 * - Stock and its version live in the pet's row: a write locks and changes one row, and the pet's
 *   status and its inventory status can never disagree.
 * - Tags and photo URLs are JSON text, read and written whole with the pet; tag and category ids are
 *   decimal strings, so that no JSON reader rounds them.
 * - `stock_changes.id` comes from an identity: it grows with every change, and a pet's changes are
 *   made one at a time under its row lock, so the id orders them.
 * - An idempotency record holds the outcome of a keyed write, stored in the write's transaction.
 * - `inventory_stamps` counts the committed writes to `pets`, spread over 64 rows so that writes of
 *   different pets seldom wait for one another's counter: the sum of the counters only grows, and grows
 *   with every committed write, which makes it the list's stamp. `epoch` tells this database's counts
 *   from another's.
 * - API keys keep only the SHA-256 hash; limits are stored for enterprise keys alone.
 * - CHECK constraints refuse a value the domain would refuse, whoever writes it.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pets (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    status text NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
    quantity integer NOT NULL CHECK (quantity >= 0),
    version bigint NOT NULL DEFAULT 1 CHECK (version >= 1),
    category_id text,
    category_name text,
    photo_urls text NOT NULL DEFAULT '[]',
    tags text NOT NULL DEFAULT '[]',
    CHECK ((category_id IS NULL) = (category_name IS NULL))
  );

  CREATE TABLE stock_changes (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pet_id bigint NOT NULL REFERENCES pets (id),
    before_quantity integer NOT NULL,
    before_status text NOT NULL,
    after_quantity integer NOT NULL,
    after_status text NOT NULL,
    actor text NOT NULL,
    at_ms bigint NOT NULL
  );
  CREATE INDEX stock_changes_by_pet ON stock_changes (pet_id, id);

  CREATE TABLE inventory_stamps (
    stripe smallint PRIMARY KEY CHECK (stripe BETWEEN 0 AND 63),
    writes bigint NOT NULL DEFAULT 0
  );
  INSERT INTO inventory_stamps (stripe) SELECT generate_series(0, 63);
  CREATE TABLE inventory_epoch (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    epoch uuid NOT NULL DEFAULT gen_random_uuid()
  );
  INSERT INTO inventory_epoch DEFAULT VALUES;

  CREATE TABLE idempotency_records (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    outcome text NOT NULL,
    expires_at_ms bigint NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_records_by_expiry ON idempotency_records (expires_at_ms);

  CREATE TABLE orders (
    id bigint PRIMARY KEY,
    pet_id bigint NOT NULL REFERENCES pets (id),
    quantity integer NOT NULL,
    ship_date text NOT NULL,
    status text NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
    complete boolean NOT NULL
  );
  CREATE INDEX orders_by_pet ON orders (pet_id);

  CREATE TABLE api_keys (
    id text PRIMARY KEY,
    hash text NOT NULL UNIQUE,
    plan text NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
    per_minute integer,
    per_day integer,
    label text,
    created_at_ms bigint NOT NULL,
    revoked_at_ms bigint,
    CHECK ((plan = 'enterprise') = (per_minute IS NOT NULL AND per_day IS NOT NULL))
  );
  CREATE INDEX api_keys_by_age ON api_keys (created_at_ms, id);
  `,
];

/** The advisory lock every instance takes to migrate: one number of this application's own ("PETSTORE"). */
const MIGRATION_LOCK = 0x50455453_544f5245n;

/**
 * Brings the database to the newest schema in one transaction, so a failed step leaves it as it was.
 * The transaction first takes an advisory lock, so instances starting at once migrate one after the
 * other: the second finds the work done. A database newer than this code is refused: its schema may mean
 * things this code would get wrong. The statement timeout is lifted for the migration alone, which may
 * wait for the lock or rewrite a large table.
 */
export async function migrate(db: PostgresDatabase, where: string): Promise<void> {
  const known = MIGRATIONS.length;
  await db.transaction(async (tx) => {
    await tx.run('SET LOCAL statement_timeout = 0');
    await tx.run('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS petstore_schema (
         only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
         version integer NOT NULL
       )`,
    );
    const [row] = await tx.rows<[number]>('SELECT version FROM petstore_schema');
    const version = row?.[0] ?? 0;
    if (version > known) {
      throw new Error(
        `the database ${where} has schema version ${version}, newer than the ${known} this program knows; ` +
          'run a newer release of the service on it',
      );
    }
    for (let step = version; step < known; step += 1) await tx.run(MIGRATIONS[step] as string);
    if (version < known) {
      await tx.run(
        `INSERT INTO petstore_schema (version) VALUES ($1)
         ON CONFLICT (only_row) DO UPDATE SET version = excluded.version`,
        [known],
      );
    }
  });
}
