import type { InventoryRepository } from '../../src/application/ports/inventory-repository.js';

/**
 * An InventoryRepository that passes every call to `inner` except the ones `overrides` replaces: a
 * store that fails, holds or counts in one place, and is the real one everywhere else.
 */
export const delegateInventory = (
  inner: InventoryRepository,
  overrides: Partial<InventoryRepository>,
): InventoryRepository => ({
  list: (query) => inner.list(query),
  listNamed: (query) => inner.listNamed(query),
  get: (id) => inner.get(id),
  stamp: () => inner.stamp(),
  write: (command) => inner.write(command),
  forgetExpiredOutcomes: (nowMs, max) => inner.forgetExpiredOutcomes(nowMs, max),
  writeReservation: (command) => inner.writeReservation(command),
  getReservation: (id) => inner.getReservation(id),
  listHolds: (query) => inner.listHolds(query),
  nextHolder: (after) => inner.nextHolder(after),
  petsWithLapsedHolds: (nowMs, max) => inner.petsWithLapsedHolds(nowMs, max),
  markLapse: (petId, nowMs) => inner.markLapse(petId, nowMs),
  ...overrides,
});
