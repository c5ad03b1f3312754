import type { NewPet } from '../application/ports/pet-catalog.js';
import { type ApiKeyRecord, DEFAULT_SCOPES } from '../domain/api-key.js';
import type { Order } from '../domain/order.js';
import { type PetId, petId } from '../domain/pet-id.js';
import type { PetStatus } from '../domain/pet-status.js';
import { PLAN_POLICIES } from '../domain/plan.js';
import { quantity } from '../domain/quantity.js';

/** Object mothers: valid values with defaults, so a test names only what it is about. */
export const aPet = (id: bigint | number, overrides: Partial<Omit<NewPet, 'id'>> = {}): NewPet => ({
  id: petId(BigInt(id)),
  name: `pet ${id}`,
  quantity: quantity(5),
  status: 'available' as PetStatus,
  ...overrides,
});

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

export const INT64_MAX = 9223372036854775807n;
export const INT64_MIN = -9223372036854775808n;
