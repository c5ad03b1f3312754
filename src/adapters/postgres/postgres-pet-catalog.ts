import type { DuplicatePet, NewPet, PetCatalog, StockedPet } from '../../application/ports/pet-catalog.js';
import { domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { columnsOf, petOfColumns } from '../sql/pet-columns.js';
import { countWrite } from './inventory-stamp.js';
import { oneBatch, slices, valuesList } from './multi-row.js';
import { type PostgresDatabase, prepared, type Queryable } from './postgres-database.js';

type PgPetRow = [
  id: bigint,
  name: string,
  status: string,
  categoryId: string | null,
  categoryName: string | null,
  photoUrls: string,
  tags: string,
];

type StockedRow = [...PgPetRow, quantity: number];

const PET_COLUMNS = 'id, name, status, category_id, category_name, photo_urls, tags';
const BY_ID = prepared('pet_by_id', `SELECT ${PET_COLUMNS} FROM pets WHERE id = $1`);
/** As many pets a chunk of an export holds as a chunk of the inventory list. */
const EXPORT_CHUNK = 1_000;
const FIRST_EXPORT = prepared('pets_first_export', `SELECT ${PET_COLUMNS}, quantity FROM pets ORDER BY id LIMIT $1`);
const NEXT_EXPORT = prepared(
  'pets_next_export',
  `SELECT ${PET_COLUMNS}, quantity FROM pets WHERE id > $1 ORDER BY id LIMIT $2`,
);

const petOfPgRow = ([id, name, status, categoryId, categoryName, photoUrls, tags]: PgPetRow | StockedRow): Pet =>
  petOfColumns({ id, name, status, categoryId, categoryName, photoUrls, tags });

const duplicatePet = (id: bigint, twice: boolean): DuplicatePet =>
  domainError('duplicate_pet', twice ? `pet id ${id} is given twice` : `a pet with id ${id} already exists`);

/**
 * Stages a slice of pets, in stream order from `seq`; resolves to the refusal of its first pet given
 * earlier in the stream or already stored, if any. Checked here, so a refused file is refused at its
 * first problem, without reading the rest.
 */
async function stageSlice(tx: Queryable, pets: readonly NewPet[], seq: number): Promise<DuplicatePet | undefined> {
  const { text, values } = valuesList(
    pets.map((p, i) => [seq + i, ...columnsOf(p)]),
    ['bigint', 'bigint', '', '', 'integer'],
  );
  const staged = await tx.rows<[bigint]>(
    `INSERT INTO staged_pets (seq, id, name, status, quantity, category_id, category_name, photo_urls, tags)
     VALUES ${text} ON CONFLICT (id) DO NOTHING RETURNING id`,
    values,
  );
  const fresh = new Set(staged.map(([id]) => id));
  const stored = new Set(
    (await tx.rows<[bigint]>('SELECT id FROM pets WHERE id = ANY($1::bigint[])', [`{${pets.map((p) => p.id)}}`])).map(
      ([id]) => id,
    ),
  );
  for (const p of pets) {
    if (!fresh.has(p.id)) return duplicatePet(p.id, true);
    if (stored.has(p.id)) return duplicatePet(p.id, false);
    // An id given twice in this slice: the first was staged, the second was not.
    fresh.delete(p.id);
  }
  return undefined;
}

/**
 * Moves the staged pets into `pets` in one statement. A pet another writer stored while the stream was
 * read is skipped by the insert and named: of the pets whose row this transaction did not write, the
 * first in stream order.
 */
async function storeStaged(tx: Queryable, count: number): Promise<DuplicatePet | undefined> {
  const [[added] = [0n]] = await tx.rows<[bigint]>(
    `WITH added AS (
       INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
       SELECT id, name, status, quantity, category_id, category_name, photo_urls, tags FROM staged_pets ORDER BY seq
       ON CONFLICT (id) DO NOTHING RETURNING 1
     ) SELECT count(*) FROM added`,
  );
  if (Number(added) === count) return undefined;
  const [[id] = [0n]] = await tx.rows<[bigint]>(
    `SELECT s.id FROM staged_pets s JOIN pets p USING (id)
     WHERE p.xmin <> pg_current_xact_id()::xid ORDER BY s.seq LIMIT 1`,
  );
  return duplicatePet(id, false);
}

/**
 * The `pets` table. A pet's stock lives in its row, so adding a pet starts its inventory entry. Adds go
 * through a staging table of their own transaction (dropped at its end): a long import reads its whole
 * input without holding a lock on any pet, and its pets appear at once, in the last statement.
 */
export class PostgresPetCatalog implements PetCatalog {
  constructor(private readonly db: PostgresDatabase) {}

  async get(id: PetId): Promise<Pet | undefined> {
    const [row] = await this.db.rows<PgPetRow>(BY_ID, [id]);
    return row === undefined ? undefined : petOfPgRow(row);
  }

  addAll(pets: readonly NewPet[]): Promise<Result<number, DuplicatePet>> {
    return this.addStream(oneBatch(pets));
  }

  async addStream(batches: AsyncIterable<readonly NewPet[]>): Promise<Result<number, DuplicatePet>> {
    let count = 0;
    let first: PetId | undefined;
    const refusal = await this.db.allOrNothing(async (tx): Promise<DuplicatePet | undefined> => {
      await tx.run(
        `CREATE TEMPORARY TABLE staged_pets (
           seq bigint NOT NULL, id bigint PRIMARY KEY, name text NOT NULL, status text NOT NULL,
           quantity integer NOT NULL, category_id text, category_name text, photo_urls text NOT NULL,
           tags text NOT NULL
         ) ON COMMIT DROP`,
      );
      for await (const batch of batches) {
        for (const slice of slices(batch)) {
          const refused = await stageSlice(tx, slice, count);
          if (refused !== undefined) return refused;
          first ??= slice[0]?.id;
          count += slice.length;
        }
      }
      if (first === undefined) return undefined;
      const refused = await storeStaged(tx, count);
      if (refused !== undefined) return refused;
      // New entries change the list: its stamp moves with the commit.
      await countWrite(tx, first);
      return undefined;
    });
    return refusal === undefined ? ok(count) : fail(refusal);
  }

  /** Keyset pages, one query each, as the inventory list reads them. */
  async *listWithStock(): AsyncIterable<readonly StockedPet[]> {
    let after: bigint | undefined;
    for (;;) {
      const rows =
        after === undefined
          ? await this.db.rows<StockedRow>(FIRST_EXPORT, [EXPORT_CHUNK])
          : await this.db.rows<StockedRow>(NEXT_EXPORT, [after, EXPORT_CHUNK]);
      if (rows.length === 0) return;
      yield rows.map((row) => ({ ...petOfPgRow(row), quantity: quantity(row[7]) }));
      if (rows.length < EXPORT_CHUNK) return;
      after = (rows[rows.length - 1] as StockedRow)[0];
    }
  }
}
