/**
 * A stock service of its own on Hono, with the pet store inventory core inside: the core's rules (stock
 * never below what is reserved, exact 64-bit pet ids, the status that follows the quantity, conditional
 * writes by version) over the SQLite adapter. Its HTTP surface is its own, smaller than the pet store
 * API: add pets, read one pet's stock, set or move it, list it.
 */
import { Hono } from 'hono';
import {
  createInventoryCore,
  isDelta,
  MemoryRateLimiter,
  parsePetId,
  QUANTITY_MAX,
  quantity,
  systemClock,
  WebCryptoKeyCrypto,
} from 'petstore-inventory';
import { openSqliteStorage } from 'petstore-inventory/sqlite';

/** How each of the core's refusals is answered here. */
const STATUS_OF = {
  pet_not_found: 404,
  duplicate_pet: 409,
  precondition_failed: 412,
  quantity_below_reserved: 409,
  insufficient_stock: 409,
  quantity_limit_exceeded: 422,
};

/** A stock entry as JSON: the id as a string, so that no client rounds an id past 2^53. */
const entryJson = ({ item, version }) => ({
  petId: item.petId.toString(),
  quantity: item.quantity,
  reserved: item.reserved,
  status: item.status,
  version,
});

const refusal = (c, error) => c.json({ error: error.code, message: error.message }, STATUS_OF[error.code] ?? 400);

const isQuantity = (value) => Number.isInteger(value) && value >= 0 && value <= QUANTITY_MAX;

/** Reads the body as JSON, or undefined when it is not JSON. */
const jsonBody = (c) => c.req.json().catch(() => undefined);

/**
 * The Hono app over a SQLite file at `path` (':memory:' for a database that lives with the process).
 * `close()` commits what is pending and closes the database.
 */
export function createStockApp({ path }) {
  const storage = openSqliteStorage({ path });
  const crypto = new WebCryptoKeyCrypto();
  const core = createInventoryCore({
    ...storage,
    limiter: new MemoryRateLimiter(systemClock),
    clock: systemClock,
    keyGenerator: crypto,
    keyHasher: crypto,
  });
  const app = new Hono();

  app.post('/pets', async (c) => {
    const body = await jsonBody(c);
    const id = typeof body?.id === 'string' ? parsePetId(body.id) : undefined;
    if (id === undefined || typeof body.name !== 'string' || !isQuantity(body.quantity)) {
      return c.json({ error: 'invalid_body', message: 'give id (a decimal string), name and quantity' }, 400);
    }
    const added = await core.addPets.execute([
      { id, name: body.name, quantity: quantity(body.quantity), status: 'available' },
    ]);
    if (!added.ok) return refusal(c, added.error);
    const entry = await core.getInventoryItem.execute({ petId: id });
    return c.json(entryJson(entry.value), 201);
  });

  app.get('/stock', async (c) => {
    const items = [];
    for await (const chunk of core.listInventory.execute()) {
      for (const item of chunk)
        items.push({ petId: item.petId.toString(), quantity: item.quantity, status: item.status });
    }
    return c.json(items);
  });

  app.get('/stock/:petId', async (c) => {
    const id = parsePetId(c.req.param('petId'));
    if (id === undefined) return c.json({ error: 'invalid_pet_id', message: 'a pet id is a 64-bit integer' }, 400);
    const entry = await core.getInventoryItem.execute({ petId: id });
    return entry.ok ? c.json(entryJson(entry.value)) : refusal(c, entry.error);
  });

  // { quantity } sets the stock, { delta } moves it; with ifVersion, only if nobody wrote it since.
  app.post('/stock/:petId', async (c) => {
    const id = parsePetId(c.req.param('petId'));
    const body = await jsonBody(c);
    if (id === undefined || body === undefined) {
      return c.json({ error: 'invalid_body', message: 'a pet id in the path and a JSON body' }, 400);
    }
    const common = {
      petId: id,
      actor: 'stock-app',
      ...(Number.isInteger(body.ifVersion) ? { ifVersion: [body.ifVersion] } : {}),
    };
    let written;
    if (isQuantity(body.quantity))
      written = await core.updateStock.execute({ ...common, quantity: quantity(body.quantity) });
    else if (isDelta(body.delta)) written = await core.adjustStock.execute({ ...common, delta: body.delta });
    else return c.json({ error: 'invalid_body', message: 'give quantity (0 and up) or delta (an integer)' }, 400);
    return written.ok ? c.json(entryJson(written.value.entry)) : refusal(c, written.error);
  });

  return { app, close: () => storage.close() };
}
