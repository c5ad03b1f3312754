import type { InventoryColumns, NamedInventoryItem } from '../../application/ports/inventory-repository.js';
import { availableFrom, type InventoryItem } from '../../domain/inventory-item.js';
import type { Order } from '../../domain/order.js';
import type { Pet } from '../../domain/pet.js';
import type { PetStatus } from '../../domain/pet-status.js';
import type { Reservation } from '../../domain/reservation.js';

/*
 * Hand-written JSON for the response shapes. JSON.stringify cannot write a bigint, and converting ids to
 * numbers first would round every id beyond 2^53; a template literal writes a bigint as its exact
 * digits. Statuses come from closed enums and need no escaping; free text goes through JSON.stringify.
 */

const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The exact digits of an id. Within ±(2^53 - 1) they go through a number, whose conversion to text V8
 * caches, which is cheaper than converting the bigint; beyond, the bigint writes its own.
 */
const idDigits = (id: bigint): string => (id <= SAFE_MAX && id >= -SAFE_MAX ? String(Number(id)) : String(id));

const STATUS_TAIL: Readonly<Record<PetStatus, string>> = {
  available: ',"status":"available"}',
  pending: ',"status":"pending"}',
  sold: ',"status":"sold"}',
};

/**
 * What follows an InventoryItem's petId in its JSON, up to its end:
 * `,"quantity":…,"reserved":…,"available":…,"status":"…"}`. The one writer of an item's fields, from an
 * item or from a list's columns.
 */
function entryTail(quantity: number, reserved: number, status: PetStatus): string {
  const available = availableFrom(quantity, reserved);
  // Nearly every pet holds nothing: its text then converts one number fewer (about 5 % of a long list's CPU).
  return reserved === 0
    ? `,"quantity":${quantity},"reserved":0,"available":${available}${STATUS_TAIL[status]}`
    : `,"quantity":${quantity},"reserved":${reserved},"available":${available}${STATUS_TAIL[status]}`;
}

/** One InventoryItem: `{"petId":…,"quantity":…,"reserved":…,"available":…,"status":"…"}`, petId exact. */
const entryJson = (digits: string, quantity: number, reserved: number, status: PetStatus): string =>
  `{"petId":${digits}${entryTail(quantity, reserved, status)}`;

/** One InventoryItem (see entryJson). */
export const itemJson = (item: InventoryItem): string =>
  entryJson(idDigits(item.petId), item.quantity, item.reserved, item.status);

/** A time as RFC 3339 in UTC with milliseconds. */
export const timeJson = (ms: number): string => `"${new Date(ms).toISOString()}"`;

/** One Reservation; its id is `res_` and hexadecimal digits, which need no escaping. */
export const reservationJson = (r: Reservation): string =>
  `{"id":"${r.id}","petId":${idDigits(r.petId)},"quantity":${r.quantity},"state":"${r.state}",` +
  `"createdAt":${timeJson(r.createdAtMs)},"expiresAt":${timeJson(r.expiresAtMs)}}`;

/** The items of one chunk, comma-separated, without brackets: a piece of a streamed array. */
export function itemsJson(items: readonly InventoryItem[]): string {
  let out = '';
  for (let i = 0; i < items.length; i += 1) {
    if (i > 0) out += ',';
    out += itemJson(items[i] as InventoryItem);
  }
  return out;
}

/** The quantities below this whose tail of a pet that holds nothing is kept (see tailOfNone). */
const KEPT_QUANTITIES = 1_024;
const STATUS_INDEX: Readonly<Record<PetStatus, number>> = { available: 0, pending: 1, sold: 2 };
const keptTails = new Array<string | undefined>(KEPT_QUANTITIES * 3);

/**
 * `entryTail(quantity, 0, status)`, made once for each small quantity and status and kept: nearly every
 * pet of a long list holds nothing and has a small quantity, and its text is then two joins and no
 * number converted.
 */
function tailOfNone(quantity: number, status: PetStatus): string {
  if (!(quantity >= 0 && quantity < KEPT_QUANTITIES)) return entryTail(quantity, 0, status);
  const index = quantity * 3 + STATUS_INDEX[status];
  let tail = keptTails[index];
  if (tail === undefined) {
    tail = entryTail(quantity, 0, status);
    keptTails[index] = tail;
  }
  return tail;
}

/** The entries of one chunk of columns, as `itemsJson` writes a chunk of items. */
export function columnsJson(columns: InventoryColumns): string {
  const { petIds, quantities, reserved, statuses } = columns;
  let out = '';
  for (let i = 0; i < petIds.length; i += 1) {
    const quantity = quantities[i] as number;
    const held = reserved[i] as number;
    const status = statuses[i] as PetStatus;
    // Appended: the text is a rope of the entries, which the stream copies out once (see inventory-stream.ts).
    out += `${i === 0 ? '{"petId":' : ',{"petId":'}${petIds[i] as string}${
      held === 0 ? tailOfNone(quantity, status) : entryTail(quantity, held, status)
    }`;
  }
  return out;
}

const namedJson = (named: { readonly id: bigint; readonly name: string }): string =>
  `{"id":${named.id},"name":${JSON.stringify(named.name)}}`;

/** A Pet in the public Petstore shape; category only when the pet has one. */
export function petJson(pet: Pet): string {
  const category = pet.category === undefined ? '' : `"category":${namedJson(pet.category)},`;
  return (
    `{"id":${pet.id},"name":${JSON.stringify(pet.name)},${category}` +
    `"photoUrls":${JSON.stringify(pet.photoUrls)},"tags":[${pet.tags.map(namedJson).join(',')}],` +
    `"status":"${pet.status}"}`
  );
}

/**
 * An entry with its pet's name and category (when it has one): an InventoryItem's fields, and the two
 * the list's pages add (see docs/decisions.md, "Names in the list").
 */
export function namedItemJson(item: NamedInventoryItem): string {
  const category = item.category === undefined ? '' : `,"category":${namedJson(item.category)}`;
  return (
    `{"petId":${idDigits(item.petId)},"name":${JSON.stringify(item.name)}${category}` +
    entryTail(item.quantity, item.reserved, item.status)
  );
}

const orderJson = (order: Order): string =>
  `{"id":${order.id},"petId":${order.petId},"quantity":${order.quantity},` +
  `"shipDate":${JSON.stringify(order.shipDate)},"status":"${order.status}","complete":${order.complete}}`;

/** An array of Orders, ids exact. */
export const ordersJson = (orders: readonly Order[]): string => `[${orders.map(orderJson).join(',')}]`;

/** The Error body every failure carries; `extra` is more of its members, each after a comma. */
export const errorJson = (code: string, message: string, status: number, extra = ''): string =>
  `{"code":"${code}","message":${JSON.stringify(message)},"status":${status}${extra}}`;
