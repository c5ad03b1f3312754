import type { NewPet } from '../../application/ports/pet-catalog.js';
import type { Pet } from '../../domain/pet.js';
import { petId } from '../../domain/pet-id.js';
import { isPetStatus } from '../../domain/pet-status.js';

/**
 * A pet as the SQL stores keep it: its lists as JSON text, read and written whole with the pet, and
 * tag and category ids as decimal text, since a JSON number past 2^53 is rounded by most readers.
 */
export interface PetColumns {
  readonly id: bigint;
  readonly name: string;
  readonly status: string;
  readonly categoryId: string | null;
  readonly categoryName: string | null;
  readonly photoUrls: string;
  readonly tags: string;
}

interface StoredTag {
  readonly id: string;
  readonly name: string;
}

const NONE = '[]';

/** The tags column of a new pet. */
export const tagsText = (tags: NewPet['tags']): string =>
  tags === undefined || tags.length === 0
    ? NONE
    : JSON.stringify(tags.map((t): StoredTag => ({ id: t.id.toString(), name: t.name })));

/** The photo URLs column of a new pet. */
export const photosText = (urls: NewPet['photoUrls']): string =>
  urls === undefined || urls.length === 0 ? NONE : JSON.stringify(urls);

/** The pet a row holds; the domain re-checks the id, and an unknown status throws rather than leaking. */
export function petOfColumns(row: PetColumns): Pet {
  if (!isPetStatus(row.status)) throw new Error(`pet ${row.id} has the unknown status ${row.status}`);
  const tags = (JSON.parse(row.tags) as StoredTag[]).map((t) => ({ id: BigInt(t.id), name: t.name }));
  return {
    id: petId(row.id),
    name: row.name,
    ...(row.categoryId === null || row.categoryName === null
      ? {}
      : { category: { id: BigInt(row.categoryId), name: row.categoryName } }),
    photoUrls: JSON.parse(row.photoUrls) as string[],
    tags,
    status: row.status,
  };
}
