import type { InventoryCore } from '../application/inventory-core.js';
import type { NewPet } from '../application/ports/pet-catalog.js';
import type { Order } from '../domain/order.js';
import { petId } from '../domain/pet-id.js';
import { quantity } from '../domain/quantity.js';

const dogs = { id: 1n, name: 'Dogs' };
const cats = { id: 2n, name: 'Cats' };
const birds = { id: 3n, name: 'Birds' };

const DEMO_PETS: readonly NewPet[] = [
  {
    id: petId(1n),
    name: 'Rex',
    quantity: quantity(3),
    status: 'available',
    category: dogs,
    tags: [{ id: 1n, name: 'friendly' }],
  },
  { id: petId(2n), name: 'Luna', quantity: quantity(1), status: 'pending', category: cats },
  { id: petId(3n), name: 'Kiwi', quantity: quantity(12), status: 'available', category: birds },
  { id: petId(4n), name: 'Bella', quantity: quantity(0), status: 'sold', category: dogs },
  { id: petId(5n), name: 'Milo', quantity: quantity(7), status: 'available', category: cats },
  // An id past 2^53: the list and the update keep it exact.
  { id: petId(9007199254740993n), name: 'Atlas', quantity: quantity(2), status: 'available', category: dogs },
];

const DEMO_ORDERS: readonly Order[] = [
  { id: 1n, petId: petId(2n), quantity: 1, shipDate: '2026-12-01T10:00:00.000Z', status: 'placed', complete: false },
  { id: 2n, petId: petId(4n), quantity: 1, shipDate: '2026-11-02T09:30:00.000Z', status: 'delivered', complete: true },
];

/**
 * Fills an empty development database with demo pets and orders, and makes one free-plan key.
 * Resolves to the key, which exists nowhere else: the caller shows it once.
 */
export async function seedDevelopment(core: InventoryCore): Promise<string> {
  const pets = await core.addPets.execute(DEMO_PETS);
  if (!pets.ok) throw new Error(`seeding pets failed: ${pets.error.message}`);
  const orders = await core.importOrders.execute(DEMO_ORDERS);
  if (!orders.ok) throw new Error(`seeding orders failed: ${orders.error.message}`);
  const { key } = await core.issueApiKey.execute({ plan: 'free', name: 'development' });
  return key;
}
