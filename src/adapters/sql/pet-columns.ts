import type { NewPet } from '../../application/ports/pet-catalog.js';
import { checkPetFields, type Pet } from '../../domain/pet.js';
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

/** A new pet's values in the column order of `pets` (id, name, status, quantity, category, photos, tags). */
export type NewPetColumns = [
  id: bigint,
  name: string,
  status: string,
  quantity: number,
  categoryId: string | null,
  categoryName: string | null,
  photoUrls: string,
  tags: string,
];

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

/** The columns of a new pet, in table order, once the domain has checked its fields (or thrown). */
export function columnsOf(p: NewPet): NewPetColumns {
  checkPetFields(p);
  return [
    p.id,
    p.name,
    p.status,
    p.quantity,
    p.category?.id.toString() ?? null,
    p.category?.name ?? null,
    photosText(p.photoUrls),
    tagsText(p.tags),
  ];
}

/** The pet a row holds; the domain re-checks the id, and an unknown status throws rather than leaking. */
export function petOfColumns(row: PetColumns): Pet {
  if (!isPetStatus(row.status)) throw new Error(`pet ${row.id} has the unknown status ${row.status}`);
  // Most pets have no tags and no photos: '[]' needs no parse.
  const tags =
    row.tags === NONE ? [] : (JSON.parse(row.tags) as StoredTag[]).map((t) => ({ id: BigInt(t.id), name: t.name }));
  return {
    id: petId(row.id),
    name: row.name,
    ...(row.categoryId === null || row.categoryName === null
      ? {}
      : { category: { id: BigInt(row.categoryId), name: row.categoryName } }),
    photoUrls: row.photoUrls === NONE ? [] : (JSON.parse(row.photoUrls) as string[]),
    tags,
    status: row.status,
  };
}
