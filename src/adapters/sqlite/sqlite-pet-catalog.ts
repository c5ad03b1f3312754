import type { Database, Statement } from 'better-sqlite3';
import type { NewPet, PetCatalog } from '../../application/ports/pet-catalog.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import type { Pet } from '../../domain/pet.js';
import { type PetId, petId } from '../../domain/pet-id.js';
import { isPetStatus } from '../../domain/pet-status.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { allOrNothing } from './all-or-nothing.js';
import type { StoreRevision } from './store-revision.js';

interface PetRow {
  readonly id: bigint;
  readonly name: string;
  readonly status: string;
  readonly category_id: string | null;
  readonly category_name: string | null;
  readonly photo_urls: string;
  readonly tags: string;
}

type InsertParams = [bigint, string, string, number, string | null, string | null, string, string];

/** Tags as stored: the id as decimal text, since a JSON number past 2^53 is rounded by most readers. */
interface StoredTag {
  readonly id: string;
  readonly name: string;
}

const NONE = '[]';

const tagsText = (tags: NewPet['tags']): string =>
  tags === undefined || tags.length === 0
    ? NONE
    : JSON.stringify(tags.map((t): StoredTag => ({ id: t.id.toString(), name: t.name })));

const photosText = (urls: NewPet['photoUrls']): string =>
  urls === undefined || urls.length === 0 ? NONE : JSON.stringify(urls);

function petOfRow(row: PetRow): Pet {
  if (!isPetStatus(row.status)) throw new Error(`pet ${row.id} has the unknown status ${row.status}`);
  const tags = (JSON.parse(row.tags) as StoredTag[]).map((t) => ({ id: BigInt(t.id), name: t.name }));
  return {
    id: petId(row.id),
    name: row.name,
    ...(row.category_id === null || row.category_name === null
      ? {}
      : { category: { id: BigInt(row.category_id), name: row.category_name } }),
    photoUrls: JSON.parse(row.photo_urls) as string[],
    tags,
    status: row.status,
  };
}

/** The `pets` table. A pet's stock lives in its row, so adding a pet starts its inventory entry. */
export class SqlitePetCatalog implements PetCatalog {
  private readonly byId: Statement<[bigint], PetRow>;
  private readonly insertAll: (pets: readonly NewPet[]) => DomainError<'duplicate_pet'> | undefined;

  /** `revision` is the revision of the `pets` table, which the inventory lists: an import moves it. */
  constructor(
    db: Database,
    private readonly revision: StoreRevision,
  ) {
    this.byId = db.prepare(
      'SELECT id, name, status, category_id, category_name, photo_urls, tags FROM pets WHERE id = ?',
    );
    // DO NOTHING instead of a failure: `changes` then tells a duplicate from any other error, which
    // still throws (a broken constraint there is a bug, not bad input).
    const insert = db.prepare<InsertParams>(
      `INSERT INTO pets (id, name, status, quantity, category_id, category_name, photo_urls, tags)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    );
    this.insertAll = allOrNothing(db, (pets: readonly NewPet[]): DomainError<'duplicate_pet'> | undefined => {
      for (const [index, p] of pets.entries()) {
        const added = insert.run(
          p.id,
          p.name,
          p.status,
          p.quantity,
          p.category?.id.toString() ?? null,
          p.category?.name ?? null,
          photosText(p.photoUrls),
          tagsText(p.tags),
        );
        if (added.changes === 0) {
          const twice = pets.slice(0, index).some((earlier) => earlier.id === p.id);
          return domainError(
            'duplicate_pet',
            twice ? `pet id ${p.id} is given twice` : `a pet with id ${p.id} already exists`,
          );
        }
      }
      return undefined;
    });
  }

  async get(id: PetId): Promise<Pet | undefined> {
    const row = this.byId.get(id);
    return row === undefined ? undefined : petOfRow(row);
  }

  async addAll(pets: readonly NewPet[]): Promise<Result<number, DomainError<'duplicate_pet'>>> {
    const refusal = this.insertAll(pets);
    if (refusal === undefined) this.revision.bump();
    return refusal === undefined ? ok(pets.length) : fail(refusal);
  }
}
