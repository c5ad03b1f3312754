import { stringify } from 'lossless-json';
import type * as v from 'valibot';
import type { NewPet } from '../../application/ports/pet-catalog.js';
import type { DomainError } from '../../domain/errors.js';
import { statusAfterStockChange } from '../../domain/inventory-item.js';
import { quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { type AdminCliDeps, type AdminCommand, required } from './admin-command.js';
import { int64Option, quantityOption, statusOption, textOption } from './cli-values.js';
import { orderEntry, petEntry } from './import-schemas.js';
import { readJsonArray } from './json-import.js';

const ALL_OR_NONE = 'The import is one transaction: on any problem nothing is written.';

/** The run of an import command: read and check the file, then hand every entry to one use case. */
function importFrom<S extends v.GenericSchema>(
  what: string,
  entry: S,
  add: (deps: AdminCliDeps, entries: v.InferOutput<S>[]) => Promise<Result<number, DomainError>>,
): AdminCommand['run'] {
  return async (line, deps) => {
    const path = line.positionals[0] as string;
    const entries = await readJsonArray(path, entry, what);
    if (!entries.ok) return entries;
    const added = await add(deps, entries.value);
    if (!added.ok) return fail(`${path}: ${added.error.message}`);
    return ok({ stdout: [String(added.value)], note: `imported ${added.value} ${what} from ${path}` });
  };
}

export const petsAdd: AdminCommand = {
  name: 'pets add',
  synopsis: 'pets add --id N --name TEXT [--quantity N] [--status STATUS]',
  help: `Usage: petstore pets add --id N --name TEXT [--quantity N] [--status STATUS]

Adds one pet with its opening stock and prints it as one JSON line.

Options:
  --id N             a whole number from -9223372036854775808 to 9223372036854775807 (required);
                     write a negative one as --id=-5 or --id -5
  --name TEXT        the pet's name (required)
  --quantity N       the opening stock, 0 to 2147483647 (default 0)
  --status STATUS    available, pending or sold (default: sold when the stock is 0, else available)`,
  options: ['id', 'name', 'quantity', 'status'],
  positionals: [],
  async run(line, deps) {
    const idText = required(line, 'id');
    if (!idText.ok) return idText;
    const id = int64Option('id', idText.value);
    if (!id.ok) return id;
    const nameText = required(line, 'name');
    if (!nameText.ok) return nameText;
    const name = textOption('name', nameText.value);
    if (!name.ok) return name;
    const quantityText = line.options.get('quantity');
    const stock = quantityText === undefined ? ok(quantity(0)) : quantityOption('quantity', quantityText);
    if (!stock.ok) return stock;
    const statusText = line.options.get('status');
    // Without a status the domain's stock rule decides it, as it would after an update to this stock.
    const status =
      statusText === undefined
        ? ok(statusAfterStockChange('available', stock.value))
        : statusOption('status', statusText);
    if (!status.ok) return status;
    const pet: NewPet = { id: id.value, name: name.value, quantity: stock.value, status: status.value };
    const added = await deps.addPets.execute([pet]);
    if (!added.ok) return fail(added.error.message);
    return ok({ stdout: [stringify(pet) as string], note: `added pet ${pet.id}` });
  },
};

export const petsImport: AdminCommand = {
  name: 'pets import',
  synopsis: 'pets import FILE.json',
  help: `Usage: petstore pets import FILE.json

Adds the pets of a JSON file: an array of objects with id, name, quantity and status, and optionally
category {id, name}, photoUrls [string] and tags [{id, name}]. Ids are whole numbers from
-9223372036854775808 to 9223372036854775807, kept exact however large. Prints the number of pets added.
An id already stored or given twice, or any invalid entry, is refused. ${ALL_OR_NONE}`,
  options: [],
  positionals: ['FILE.json'],
  run: importFrom('pets', petEntry, (deps, pets) => deps.addPets.execute(pets)),
};

export const ordersImport: AdminCommand = {
  name: 'orders import',
  synopsis: 'orders import FILE.json',
  help: `Usage: petstore orders import FILE.json

Adds the orders of a JSON file: an array of objects with id, petId, quantity (1 or more), shipDate
(ISO 8601 date-time), status (placed, approved or delivered) and complete (true or false). Ids are
kept exact however large. Prints the number of orders added. An id already stored or given twice, an
order of a pet the store does not have, or any invalid entry, is refused. ${ALL_OR_NONE}`,
  options: [],
  positionals: ['FILE.json'],
  run: importFrom('orders', orderEntry, (deps, orders) => deps.importOrders.execute(orders)),
};
