import type { NewPet } from '../../application/ports/pet-catalog.js';

/*
 * A pet as one line of the JSON that `pets import` reads. Written by hand: JSON.stringify cannot write
 * a bigint, and converting an id to a number first would round it past 2^53; a template literal writes
 * a bigint's exact digits. Statuses come from a closed list; free text goes through JSON.stringify.
 * Empty lists and a missing category are left out, as an import file may leave them out.
 */

const named = (n: { readonly id: bigint; readonly name: string }): string =>
  `{"id":${n.id},"name":${JSON.stringify(n.name)}}`;

export function petJson(p: NewPet): string {
  let json = `{"id":${p.id},"name":${JSON.stringify(p.name)},"quantity":${p.quantity},"status":"${p.status}"`;
  if (p.category !== undefined) json += `,"category":${named(p.category)}`;
  if (p.photoUrls !== undefined && p.photoUrls.length > 0) json += `,"photoUrls":${JSON.stringify(p.photoUrls)}`;
  if (p.tags !== undefined && p.tags.length > 0) json += `,"tags":[${p.tags.map(named).join(',')}]`;
  return `${json}}`;
}
