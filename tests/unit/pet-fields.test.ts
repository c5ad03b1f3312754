import { describe, expect, it } from 'vitest';
import {
  checkPetFields,
  nameCharactersProblem,
  PET_NAME_MAX,
  type PetFields,
  PHOTO_URL_MAX,
  PHOTO_URLS_MAX,
  pet,
  petFieldsProblem,
  photoUrlProblem,
  TAGS_MAX,
} from '../../src/domain/pet.js';
import { petId } from '../../src/domain/pet-id.js';

const rex: PetFields = { id: petId(1n), name: 'Rex', status: 'available' };
const tag = (name: string) => ({ id: 1n, name });

describe('a pet’s names', () => {
  it('may not hold a control character, nor < or >; any other text is fine', () => {
    expect(nameCharactersProblem('Re\u0007x')).toBe('holds a control character');
    expect(nameCharactersProblem('<b>Rex')).toBe('holds < or >');
    expect(nameCharactersProblem('Rex > Max')).toBe('holds < or >');
    expect(nameCharactersProblem('Rex & Max')).toBeUndefined();
  });
});

describe('a photo URL', () => {
  it('is an absolute http or https URL', () => {
    expect(photoUrlProblem('https://cdn.example.com/rex.png')).toBeUndefined();
    expect(photoUrlProblem('http://cdn.example.com/rex.png')).toBeUndefined();
  });

  it('is refused as another scheme, a relative URL, or one holding a control character', () => {
    expect(photoUrlProblem('javascript:alert(1)')).toBe('is not an http or https URL');
    expect(photoUrlProblem('/photos/rex.png')).toBe('is not an http or https URL');
    expect(photoUrlProblem('https://cdn.example.com/re\u202ex.png')).toBe('holds a control character');
  });
});

describe('a pet’s fields', () => {
  it('are fine with a name, and nothing else, or with lists at their limits', () => {
    expect(petFieldsProblem(rex)).toBeUndefined();
    const full = {
      ...rex,
      name: 'x'.repeat(PET_NAME_MAX),
      photoUrls: Array.from({ length: PHOTO_URLS_MAX }, () => `https://e.com/${'p'.repeat(PHOTO_URL_MAX - 14)}`),
      tags: Array.from({ length: TAGS_MAX }, () => tag('dog')),
    };
    expect(full.photoUrls[0]).toHaveLength(PHOTO_URL_MAX);
    expect(petFieldsProblem(full)).toBeUndefined();
  });

  it.each<[string, Partial<PetFields>, string]>([
    [
      'one photo URL too many',
      { photoUrls: Array(PHOTO_URLS_MAX + 1).fill('https://e.com/a.png') },
      'it has more than 100 photo URLs',
    ],
    ['one tag too many', { tags: Array(TAGS_MAX + 1).fill(tag('dog')) }, 'it has more than 100 tags'],
    ['an empty name', { name: '' }, 'its name is empty'],
    ['a name one past its limit', { name: 'x'.repeat(PET_NAME_MAX + 1) }, 'its name is longer than 200 characters'],
    ['a name with markup', { name: '<i>Rex</i>' }, 'its name holds < or >'],
    ['an empty category name', { category: { id: 1n, name: '' } }, 'its category name is empty'],
    [
      'a category name with a line break',
      { category: { id: 1n, name: 'do\ngs' } },
      'its category name holds a control character',
    ],
    [
      'a second photo URL that is not http',
      { photoUrls: ['https://e.com/a.png', 'ftp://e.com/b.png'] },
      'a photo URL is not an http or https URL',
    ],
    ['a second tag with an empty name', { tags: [tag('dog'), tag('')] }, 'a tag name is empty'],
    ['a second tag name with markup', { tags: [tag('dog'), tag('<b>')] }, 'a tag name holds < or >'],
  ])('are refused for %s, saying which', (_, change, problem) => {
    expect(petFieldsProblem({ ...rex, ...change })).toBe(problem);
  });

  it('answer the first problem: the name’s before the category’s, the category’s before the photos’', () => {
    expect(petFieldsProblem({ ...rex, name: '', category: { id: 1n, name: '' } })).toBe('its name is empty');
    expect(petFieldsProblem({ ...rex, category: { id: 1n, name: '' }, photoUrls: ['ftp://e.com'] })).toBe(
      'its category name is empty',
    );
  });

  it('throw a RangeError naming the pet when one is wrong, as making the pet does', () => {
    expect(() => checkPetFields({ ...rex, name: '' })).toThrow(new RangeError('pet 1: its name is empty'));
    expect(() => pet({ ...rex, tags: [tag('')] })).toThrow(new RangeError('pet 1: a tag name is empty'));
    expect(() => checkPetFields(rex)).not.toThrow();
  });

  it('make a pet whose lists default to empty, with a category only when given', () => {
    expect(pet(rex)).toEqual({ id: 1n, name: 'Rex', photoUrls: [], tags: [], status: 'available' });
    const dogs = { id: 2n, name: 'dogs' };
    expect(pet({ ...rex, category: dogs, tags: [tag('good')] })).toEqual({
      ...rex,
      category: dogs,
      photoUrls: [],
      tags: [tag('good')],
    });
  });
});
