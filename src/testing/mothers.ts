import type { NewPet } from '../application/ports/pet-catalog.js';
import { type ApiKeyRecord, DEFAULT_SCOPES } from '../domain/api-key.js';
import type { Order } from '../domain/order.js';
import { type PetId, petId } from '../domain/pet-id.js';
import type { PetStatus } from '../domain/pet-status.js';
import { PLAN_POLICIES } from '../domain/plan.js';
import { quantity } from '../domain/quantity.js';
import type { StockCommand, StockOrder } from '../domain/stock-command.js';

// Object mothers: valid values with defaults, so a test names only what it is about.

/** A pet to add: named `pet <id>`, 5 in stock, available, no category, photos or tags unless overridden. */
export const aPet = (id: bigint | number, overrides: Partial<Omit<NewPet, 'id'>> = {}): NewPet => ({
  id: petId(BigInt(id)),
  name: `pet ${id}`,
  quantity: quantity(5),
  status: 'available' as PetStatus,
  ...overrides,
});

/** An order of one of `pet`, placed, shipping on 2026-03-01 at noon UTC, unless overridden. */
export const anOrder = (
  id: bigint | number,
  pet: PetId,
  overrides: Partial<Omit<Order, 'id' | 'petId'>> = {},
): Order => ({
  id: BigInt(id),
  petId: pet,
  quantity: 1,
  shipDate: '2026-03-01T12:00:00.000Z',
  status: 'placed',
  complete: false,
  ...overrides,
});

/** A stored key of the free plan with the default scopes, created 2026-01-01, never used, unless overridden. */
export const aKeyRecord = (id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id,
  plan: 'free',
  policy: PLAN_POLICIES.free,
  name: null,
  scopes: DEFAULT_SCOPES,
  familyId: id,
  rolledFromId: null,
  createdAtMs: Date.UTC(2026, 0, 1),
  expiresAtMs: null,
  revokedAtMs: null,
  lastUsedAtMs: null,
  ...overrides,
});

/** The largest pet id: every id is a signed 64-bit integer, and a store must keep the extremes exact. */
export const INT64_MAX = 9223372036854775807n;
/** The smallest pet id. */
export const INT64_MIN = -9223372036854775808n;

/** The time the stock commands of the mothers below are made at: 2026-06-01 at noon UTC. */
export const COMMAND_AT_MS = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A stock command of `orders`, by `key_a` at {@link COMMAND_AT_MS}, unless overridden. */
export const aCommand = (orders: readonly StockOrder[], overrides: Partial<StockCommand> = {}): StockCommand => ({
  orders,
  actor: 'key_a',
  atMs: COMMAND_AT_MS,
  ...overrides,
});

/** An order moving the stock of pet `id` by `delta`, with `reason` if given. */
export const adjustBy = (id: bigint, delta: number, reason?: string): StockOrder => ({
  kind: 'adjust',
  petId: petId(id),
  delta,
  ...(reason === undefined ? {} : { reason }),
});

/** An order setting the stock of pet `id` to `q`. */
export const setTo = (id: bigint, q: number): StockOrder => ({ kind: 'set', petId: petId(id), quantity: quantity(q) });
