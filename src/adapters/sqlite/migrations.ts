import type { Database } from 'better-sqlite3';

/**
 * The schema, one step a version: step i brings a database from `user_version` i to i + 1. A step is
 * never edited once released; a change of schema is a new step at the end.
 *
 * Why it looks as it does:
 * - `pets.id` is the INTEGER PRIMARY KEY (the rowid), so an id is an exact int64 and listing by id is a
 *   walk of the table's own b-tree, with no index to keep.
 * - Stock lives in the pet's row: an update reads and writes one row, and the pet's status and its
 *   inventory status can never disagree.
 * - Tags and photo URLs are JSON text, read and written whole with the pet; tag and category ids are
 *   written as decimal strings so that no JSON reader rounds them.
 * - API keys keep only the SHA-256 hash. Limits are stored for enterprise keys alone: the other plans
 *   take their published limits from the code, so a change of a plan's limits reaches every key of it.
 * - STRICT tables and CHECK constraints refuse a value the domain would refuse, whoever writes it.
 * - `stock_changes.seq` is the change's id in the API: it grows with every insert, so it orders a pet's
 *   history and pages it.
 * - `limiter_subjects` holds the in-process rate limiter's state between a graceful stop and the next
 *   start: one row per subject, its state as text the memory limiter alone reads. It is a snapshot,
 *   replaced whole at every stop, not a log.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE pets (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold')),
    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 0 AND 2147483647),
    category_id TEXT,
    category_name TEXT,
    photo_urls TEXT NOT NULL DEFAULT '[]',
    tags TEXT NOT NULL DEFAULT '[]',
    CHECK ((category_id IS NULL) = (category_name IS NULL))
  ) STRICT;

  CREATE TABLE stock_changes (
    seq INTEGER PRIMARY KEY,
    pet_id INTEGER NOT NULL REFERENCES pets (id),
    before_quantity INTEGER NOT NULL,
    before_status TEXT NOT NULL,
    after_quantity INTEGER NOT NULL,
    after_status TEXT NOT NULL,
    actor TEXT NOT NULL,
    at_ms INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX stock_changes_by_pet ON stock_changes (pet_id, seq);

  CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    pet_id INTEGER NOT NULL REFERENCES pets (id),
    quantity INTEGER NOT NULL,
    ship_date TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
    complete INTEGER NOT NULL CHECK (complete IN (0, 1))
  ) STRICT;
  CREATE INDEX orders_by_pet ON orders (pet_id);

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    plan TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
    per_minute INTEGER,
    per_day INTEGER,
    label TEXT,
    created_at_ms INTEGER NOT NULL,
    revoked_at_ms INTEGER,
    CHECK ((plan = 'enterprise') = (per_minute IS NOT NULL AND per_day IS NOT NULL))
  ) STRICT;
  CREATE INDEX api_keys_by_age ON api_keys (created_at_ms, id);
  `,
  // 2: versions and idempotent writes (1.1). An entry's version counts its changes: an existing pet
  // starts at 1 plus the changes already recorded, as if versions had always been kept. The outcome of
  // a keyed write lives beside the change it answered, written in the same transaction.
  `
  ALTER TABLE pets ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1);
  UPDATE pets SET version = 1 + (SELECT count(*) FROM stock_changes WHERE pet_id = pets.id);

  CREATE TABLE idempotency_claims (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    outcome TEXT NOT NULL,
    expires_at_ms INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX idempotency_claims_by_expiry ON idempotency_claims (expires_at_ms);
  `,
  // 3: the in-process rate limiter's state across a graceful restart (hardening 1.1).
  `
  CREATE TABLE limiter_subjects (
    subject TEXT PRIMARY KEY,
    state TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // 4: each change says its kind and its reason (1.2). The changes recorded before all set a count. The
  // CHECK names reservation_commit too, the kind DESIGN 4.3 adds, since SQLite cannot alter a CHECK
  // without copying the table. The reason's length is the domain's to check: SQLite counts characters
  // as the domain does, but a CHECK cannot say "no control character".
  `
  ALTER TABLE stock_changes ADD COLUMN kind TEXT NOT NULL DEFAULT 'set'
    CHECK (kind IN ('set', 'adjust', 'reservation_commit'));
  ALTER TABLE stock_changes ADD COLUMN reason TEXT CHECK (length(reason) BETWEEN 1 AND 200);
  `,
  // 5: key lifecycle (1.2): scopes (space-separated, as OAuth writes them; an existing key keeps every
  // power it had), expiry, the roll chain whose first key names the shared rate-limit subject (an
  // existing key heads its own), the last use, and the audit trail of admin changes, which triggers
  // keep append-only.
  `
  ALTER TABLE api_keys ADD COLUMN scopes TEXT NOT NULL DEFAULT 'inventory:read inventory:write';
  ALTER TABLE api_keys ADD COLUMN expires_at_ms INTEGER;
  ALTER TABLE api_keys ADD COLUMN family_id TEXT;
  UPDATE api_keys SET family_id = id;
  ALTER TABLE api_keys ADD COLUMN rolled_from_id TEXT REFERENCES api_keys (id);
  ALTER TABLE api_keys ADD COLUMN last_used_at_ms INTEGER;

  CREATE TABLE api_key_audit (
    seq INTEGER PRIMARY KEY,
    action TEXT NOT NULL CHECK (action IN ('create', 'roll', 'revoke', 'expire')),
    key_id TEXT NOT NULL,
    actor TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    new_key_id TEXT,
    expires_at_ms INTEGER
  ) STRICT;
  CREATE TRIGGER api_key_audit_no_update BEFORE UPDATE ON api_key_audit
    BEGIN SELECT RAISE(ABORT, 'the key audit trail is append-only'); END;
  CREATE TRIGGER api_key_audit_no_delete BEFORE DELETE ON api_key_audit
    BEGIN SELECT RAISE(ABORT, 'the key audit trail is append-only'); END;
  `,
  // 6: stock events (1.2). The outbox gets an entry in the transaction of every change by a trigger, so
  // whatever writes a change (a set, an adjustment, a batch, any later kind) writes its event with it.
  // Endpoints keep their signing secret (it signs, so it cannot be a hash); a delivery is one event of
  // one change for one endpoint, queued in `seq` order; each attempt is kept for `webhooks deliveries`.
  `
  CREATE TABLE event_outbox (change_seq INTEGER PRIMARY KEY REFERENCES stock_changes (seq)) STRICT;
  CREATE TRIGGER stock_changes_to_outbox AFTER INSERT ON stock_changes
    BEGIN INSERT INTO event_outbox (change_seq) VALUES (new.seq); END;

  CREATE TABLE webhook_endpoints (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    secret TEXT NOT NULL,
    events TEXT NOT NULL,
    low_stock_threshold INTEGER CHECK (low_stock_threshold BETWEEN 0 AND 2147483647),
    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    failing_since_ms INTEGER,
    created_at_ms INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    pet_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_ms INTEGER NOT NULL DEFAULT 0,
    lease_until_ms INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (endpoint_id, pet_id, seq) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms, seq) WHERE state = 'pending';
  CREATE TABLE webhook_attempts (
    seq INTEGER PRIMARY KEY,
    delivery_seq INTEGER NOT NULL REFERENCES webhook_deliveries (seq) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    status INTEGER,
    error TEXT
  ) STRICT;
  CREATE INDEX webhook_attempts_by_endpoint ON webhook_attempts (endpoint_id, seq);
  CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_seq);
  `,
  // 7: reservations (1.2). `pets.held` is the sum of the pet's reservations stored as held, expired or
  // not: 0 for a pet without any, which lets a list skip the reservations of nearly every pet. What is
  // reserved is counted at read time from the holds not yet expired. The partial indexes hold the held
  // rows alone: the lookups of a pet's holds and of the lapsed ones stay small however long the
  // history of settled reservations grows.
  `
  ALTER TABLE pets ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held BETWEEN 0 AND quantity);

  CREATE TABLE reservations (
    id TEXT PRIMARY KEY,
    pet_id INTEGER NOT NULL REFERENCES pets (id),
    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 2147483647),
    state TEXT NOT NULL CHECK (state IN ('held', 'committed', 'released', 'expired')),
    created_at_ms INTEGER NOT NULL,
    expires_at_ms INTEGER NOT NULL CHECK (expires_at_ms > created_at_ms),
    actor TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX reservations_held_by_pet ON reservations (pet_id, expires_at_ms) WHERE state = 'held';
  CREATE INDEX reservations_held_by_expiry ON reservations (expires_at_ms) WHERE state = 'held';
  `,
  // 8: a change gets an outbox entry only while some webhook endpoint is registered (enabled or not, as
  // routing decides by what is enabled then). With none, an entry could only be routed to nobody: the
  // trigger's insert and the dispatcher's routing and delete cost every stock write for nothing.
  `
  DROP TRIGGER stock_changes_to_outbox;
  CREATE TRIGGER stock_changes_to_outbox AFTER INSERT ON stock_changes
    WHEN EXISTS (SELECT 1 FROM webhook_endpoints)
    BEGIN INSERT INTO event_outbox (change_seq) VALUES (new.seq); END;
  `,
  // 9: settled deliveries are forgotten after a while (with their attempts, by the cascade): this index
  // finds the oldest of them without reading the pending ones or the newer ones.
  `
  CREATE INDEX webhook_deliveries_settled ON webhook_deliveries (created_at_ms) WHERE state <> 'pending';
  `,
  // 10: the list's filters (see filtered-inventory-pages.ts). By status, each status's pets in id order,
  // so a page of a status is a walk of its own entries. By what is left once every stored hold is set
  // aside (quantity - held, never above what is available), so the pets of low stock are found without
  // reading the others; and the same within each status, for the two filters at once.
  `
  CREATE INDEX pets_by_status ON pets (status, id);
  CREATE INDEX pets_by_spare ON pets (quantity - held, id);
  CREATE INDEX pets_by_status_spare ON pets (status, quantity - held, id);
  `,
  // 11: every reservation names the key that made it (`actor`, since step 7); this index holds each
  // key's held ones by expiry, so that a reserve counts its key's holds against the key's limit, and an
  // operator lists or releases a key's holds, reading only that key's.
  `
  CREATE INDEX reservations_held_by_key ON reservations (actor, expires_at_ms) WHERE state = 'held';
  `,
  // 12: the search by part of a name (see named-inventory-pages.ts): an FTS5 index of every name's
  // trigrams, case folded, over `pets` itself (external content: the names are not stored twice), kept
  // by triggers. A stock write changes no name, so it fires none of them.
  `
  CREATE VIRTUAL TABLE pet_names USING fts5(name, content = 'pets', content_rowid = 'id', tokenize = 'trigram');
  INSERT INTO pet_names (pet_names) VALUES ('rebuild');
  CREATE TRIGGER pet_names_added AFTER INSERT ON pets
    BEGIN INSERT INTO pet_names (rowid, name) VALUES (new.id, new.name); END;
  CREATE TRIGGER pet_names_renamed AFTER UPDATE OF name ON pets BEGIN
    INSERT INTO pet_names (pet_names, rowid, name) VALUES ('delete', old.id, old.name);
    INSERT INTO pet_names (rowid, name) VALUES (new.id, new.name);
  END;
  CREATE TRIGGER pet_names_removed AFTER DELETE ON pets
    BEGIN INSERT INTO pet_names (pet_names, rowid, name) VALUES ('delete', old.id, old.name); END;
  `,
];

/**
 * Brings the database to the newest schema in one transaction, so a failed step leaves it as it was.
 * The version is read again inside the write lock: two processes opening one new file at once would
 * otherwise both run the first step. A database newer than this code is refused: its schema may mean
 * things this code would get wrong.
 */
export function migrate(db: Database, path: string): void {
  const known = MIGRATIONS.length;
  const versionOf = (): number => Number(db.pragma('user_version', { simple: true }));
  const refuseNewer = (version: number): void => {
    if (version > known) {
      throw new Error(
        `the database ${path} has schema version ${version}, newer than the ${known} this program knows; ` +
          'run a newer release of the service on it',
      );
    }
  };
  refuseNewer(versionOf());
  db.transaction(() => {
    const version = versionOf();
    refuseNewer(version);
    for (let step = version; step < known; step += 1) db.exec(MIGRATIONS[step] as string);
    // A pragma takes no bound parameter; `known` is a number this code owns.
    if (version < known) db.pragma(`user_version = ${known}`);
  }).immediate();
}
