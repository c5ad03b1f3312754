import type { PetId } from './pet-id.js';
import type { PetStatus } from './pet-status.js';
import { holdsControlCharacter } from './plain-text.js';

/** A pet as the store describes it (the public Petstore shape). Its stock is an InventoryItem. */
export interface Pet {
  readonly id: PetId;
  readonly name: string;
  readonly category?: { readonly id: bigint; readonly name: string };
  readonly photoUrls: readonly string[];
  readonly tags: readonly { readonly id: bigint; readonly name: string }[];
  readonly status: PetStatus;
}

/*
 * The longest texts and lists a pet holds. Lengths count UTF-16 code units (a JavaScript string's
 * length), so a character beyond the Basic Multilingual Plane, such as most emoji, counts two; a store
 * that counts characters (SQLite's length(), PostgreSQL's varchar) never sees more than these.
 * They bound what one pet costs every reader of the store, and refuse a runaway value (a 300 MB name)
 * with a message instead of exhausting memory.
 */
export const PET_NAME_MAX = 200;
export const CATEGORY_NAME_MAX = 100;
export const TAG_NAME_MAX = 100;
/** Long enough for signed CDN URLs; browsers and proxies commonly stop at about 8 KB. */
export const PHOTO_URL_MAX = 2_048;
export const PHOTO_URLS_MAX = 100;
export const TAGS_MAX = 100;

/** A pet's fields as given when it is added: the lists may be left out. */
export type PetFields = Omit<Pet, 'photoUrls' | 'tags'> & {
  readonly photoUrls?: Pet['photoUrls'];
  readonly tags?: Pet['tags'];
};

// Angle brackets: a name is shown in shop fronts, and one that holds markup is a script waiting for a
// page that forgets to escape it.
const MARKUP = /[<>]/;

/** What is wrong with a pet's, category's or tag's name beyond its length, or `undefined`. */
export function nameCharactersProblem(name: string): string | undefined {
  if (holdsControlCharacter(name)) return 'holds a control character';
  return MARKUP.test(name) ? 'holds < or >' : undefined;
}

/**
 * What is wrong with a photo URL beyond its length, or `undefined`: it must be an absolute http or https
 * URL, as an image is fetched from one; a `javascript:` or `data:` URL put into a page's <img> or <a>
 * runs script or carries megabytes.
 */
export function photoUrlProblem(url: string): string | undefined {
  if (holdsControlCharacter(url)) return 'holds a control character';
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  return protocol === 'http:' || protocol === 'https:' ? undefined : 'is not an http or https URL';
}

const lengthProblem = (what: string, text: string, max: number): string | undefined =>
  text.length === 0 ? `${what} is empty` : text.length > max ? `${what} is longer than ${max} characters` : undefined;

/** `what`'s problem: its length first, then `content`'s verdict on it, said of `what`. */
function textProblem(
  what: string,
  text: string,
  max: number,
  content: (text: string) => string | undefined,
): string | undefined {
  const wrong = lengthProblem(what, text, max);
  if (wrong !== undefined) return wrong;
  const problem = content(text);
  return problem === undefined ? undefined : `${what} ${problem}`;
}

/** What is wrong with `fields` against the limits above, or `undefined` when nothing is. */
export function petFieldsProblem(fields: PetFields): string | undefined {
  const photoUrls = fields.photoUrls ?? [];
  const tags = fields.tags ?? [];
  if (photoUrls.length > PHOTO_URLS_MAX) return `it has more than ${PHOTO_URLS_MAX} photo URLs`;
  if (tags.length > TAGS_MAX) return `it has more than ${TAGS_MAX} tags`;
  return (
    textProblem('its name', fields.name, PET_NAME_MAX, nameCharactersProblem) ??
    (fields.category === undefined
      ? undefined
      : textProblem('its category name', fields.category.name, CATEGORY_NAME_MAX, nameCharactersProblem)) ??
    photoUrls
      .map((url) => textProblem('a photo URL', url, PHOTO_URL_MAX, photoUrlProblem))
      .find((p) => p !== undefined) ??
    tags
      .map((tag) => textProblem('a tag name', tag.name, TAG_NAME_MAX, nameCharactersProblem))
      .find((p) => p !== undefined)
  );
}

/**
 * Throws a RangeError when a field is beyond its limit: the edges refuse such input with a message
 * first, so reaching here with one is a bug of the caller.
 */
export function checkPetFields(fields: PetFields): void {
  const problem = petFieldsProblem(fields);
  if (problem !== undefined) throw new RangeError(`pet ${fields.id}: ${problem}`);
}

/** Makes a Pet, lists defaulting to empty, throwing as `checkPetFields` does. */
export function pet(fields: PetFields): Pet {
  checkPetFields(fields);
  return {
    id: fields.id,
    name: fields.name,
    ...(fields.category === undefined ? {} : { category: fields.category }),
    photoUrls: fields.photoUrls ?? [],
    tags: fields.tags ?? [],
    status: fields.status,
  };
}
