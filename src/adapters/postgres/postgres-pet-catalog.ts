import type { NewPet, PetCatalog } from '../../application/ports/pet-catalog.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import type { PetId } from '../../domain/pet-id.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { petOfColumns, photosText, tagsText } from '../shared/pet-columns.js';
import { countWrite } from './inventory-stamp.js';
import { slices, valuesList } from './multi-row.js';
import type { PostgresDatabase, Queryable } from './postgres-database.js';

type PetRow = [
  id: bigint,
  name: string,
  status: string,
  categoryId: string | null,
  categoryName: string | null,
  photoUrls: string,
  tags: string,
];

const petOfRow = ([id, name, status, categoryId, categoryName, photoUrls, tags]: PetRow): Pet =>
  petOfColumns({ id, name, status, categoryId, categoryName, photoUrls, tags });

/** Refuses a batch that names one id twice, naming the id: the table would only say "conflict". */
function repeatedId(pets: readonly NewPet[]): PetId | undefined {
  const seen = new Set<PetId>();
  for (const p of pets) {
    if (seen.has(p.id)) return p.id;
    seen.add(p.id);
  }
  return undefined;
}

/** Inserts a slice of pets, skipping ids already stored; resolves to the ids it inserted. */
async function insertSlice(tx: Queryable, pets: readonly NewPet[]): Promise<Set<bigint>> {
  const { text, values } = valuesList(
    pets.map((p) => [
      p.id,
      p.name,
      p.status,
      p.quantity,
      p.category?.id.toString() ?? null,
      p.category?.name ?? null,
      photosText(p.photoUrls),
      tagsText(p.tags),
    ]),
    ['bigint', '', '', 'integer'],
  );
  // DO NOTHING instead of a failure: the ids that come back tell a duplicate from any other error,
  // which still throws (a broken constraint there is a bug, not bad input).
  const rows = await tx.rows<[bigint]>(
    `INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
     VALUES ${text} ON CONFLICT (id) DO NOTHING RETURNING id`,
    values,
  );
  return new Set(rows.map(([id]) => id));
}

/** The `pets` table. A pet's stock lives in its row, so adding a pet starts its inventory entry. */
export class PostgresPetCatalog implements PetCatalog {
  constructor(private readonly db: PostgresDatabase) {}

  async get(id: PetId): Promise<Pet | undefined> {
    const [row] = await this.db.rows<PetRow>(
      'SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = $1',
      [id],
    );
    return row === undefined ? undefined : petOfRow(row);
  }

  /** One transaction for the whole batch, inserted a thousand rows a statement. */
  async addAll(pets: readonly NewPet[]): Promise<Result<number, DomainError<'duplicate_pet'>>> {
    const twice = repeatedId(pets);
    if (twice !== undefined) return fail(domainError('duplicate_pet', `pet id ${twice} is given twice`));
    const refusal = await this.db.allOrNothing(async (tx) => {
      for (const slice of slices(pets)) {
        const inserted = await insertSlice(tx, slice);
        const stored = slice.find((p) => !inserted.has(p.id));
        if (stored !== undefined) return domainError('duplicate_pet', `a pet with id ${stored.id} already exists`);
      }
      // New entries change the list: its stamp moves with the commit.
      const [first] = pets;
      if (first !== undefined) await countWrite(tx, first.id);
      return undefined;
    });
    return refusal === undefined ? ok(pets.length) : fail(refusal);
  }
}
