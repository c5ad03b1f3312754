import type * as v from 'valibot';
import type { DomainError } from '../../domain/errors.js';
import { openingStockProblem, statusAfterStockChange } from '../../domain/inventory-item.js';
import { nameCharactersProblem, PET_NAME_MAX } from '../../domain/pet.js';
import { quantity } from '../../domain/quantity.js';
import { fail, ok, type Result } from '../../domain/result.js';
import { type AdminCliDeps, type AdminCommand, required } from './admin-command.js';
import { int64Option, quantityOption, statusOption, textOption } from './cli-values.js';
import { petJson } from './pet-json.js';
import { count } from './progress.js';

const ALL_OR_NONE = `The file is read as a stream, so its size is bounded by the disk, not by memory; on a
terminal, stderr shows how far it has got. The import is one transaction: on any problem, even in the
last entry, nothing is written.`;

/**
 * The run of an import command: open the file, then hand its entries, read and checked batch by batch,
 * to one use case that adds all or none. A problem found in the file while the store reads it arrives
 * as an ImportRefusal thrown through the store, which has then written nothing. The reader and the
 * entry's schema are imported when an import runs: they need valibot and lossless-json, which the
 * commands' help does not.
 */
function importFrom<S extends v.GenericSchema>(
  what: string,
  entryOf: () => Promise<S>,
  add: (deps: AdminCliDeps, batches: AsyncIterable<v.InferOutput<S>[]>) => Promise<Result<number, DomainError>>,
): AdminCommand['run'] {
  return async (line, deps, io) => {
    const path = line.positionals[0] as string;
    const [{ ImportRefusal, openImportFile }, entry] = await Promise.all([import('./json-import.js'), entryOf()]);
    const file = await openImportFile(path, entry, what, io.progress);
    if (!file.ok) return file;
    let added: Result<number, DomainError>;
    try {
      added = await add(deps, file.value.batches);
    } catch (error) {
      if (error instanceof ImportRefusal) return fail(error.message);
      throw error;
    } finally {
      await file.value.close();
    }
    if (!added.ok) return fail(`${path}: ${added.error.message}`);
    return ok({ stdout: [String(added.value)], note: `imported ${count(added.value)} ${what} from ${path}` });
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
  --name TEXT        the pet's name, at most ${PET_NAME_MAX} characters (required)
  --quantity N       the opening stock, 0 to 2147483647 (default 0)
  --status STATUS    available, pending or sold (default: sold when the stock is 0, else available);
                     it must agree with the stock: sold when it is 0, and only then`,
  options: ['id', 'name', 'quantity', 'status'],
  positionals: [],
  async run(line, deps) {
    const idText = required(line, 'id');
    if (!idText.ok) return idText;
    const id = int64Option('id', idText.value);
    if (!id.ok) return id;
    const nameText = required(line, 'name');
    if (!nameText.ok) return nameText;
    const name = textOption('name', nameText.value, PET_NAME_MAX, nameCharactersProblem);
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
    const problem = openingStockProblem(status.value, stock.value);
    if (problem !== undefined) return fail(`--${problem}`);
    const pet = { id: id.value, name: name.value, quantity: stock.value, status: status.value };
    const added = await deps.addPets.execute([pet]);
    if (!added.ok) return fail(added.error.message);
    return ok({ stdout: [petJson(pet)], note: `added pet ${pet.id}` });
  },
};

export const petsImport: AdminCommand = {
  name: 'pets import',
  synopsis: 'pets import FILE.json',
  help: `Usage: petstore pets import FILE.json

Adds the pets of a JSON file in UTF-8, as pets export writes it: an array of objects with id, name,
quantity and status, and optionally category {id, name}, photoUrls [string] and tags [{id, name}]. Ids
are whole numbers from -9223372036854775808 to 9223372036854775807, kept exact however large. Prints
the number of pets added. An id already stored or given twice, a byte that is not UTF-8 (named by its
offset), or any invalid entry, is refused. A name takes at most ${PET_NAME_MAX} characters; the other
limits are in the message that names a field past one.
${ALL_OR_NONE}`,
  options: [],
  positionals: ['FILE.json'],
  run: importFrom(
    'pets',
    async () => (await import('./import-schemas.js')).petEntry,
    (deps, batches) => deps.addPets.execute(batches),
  ),
};

/** Pets written between two updates of the progress line. */
const EXPORT_PROGRESS_STEP = 10_000;

export const petsExport: AdminCommand = {
  name: 'pets export',
  synopsis: 'pets export',
  help: `Usage: petstore pets export > FILE.json

Writes every pet with its stock to stdout as the JSON that pets import reads: an array, one pet a line,
by id ascending, ids exact. The catalogue is read and written in chunks, so memory stays flat however
many pets there are; on a terminal, stderr shows how far it has got. Importing the file into an empty
database gives back the same pets, every field kept.`,
  options: [],
  positionals: [],
  async run(_line, deps, io) {
    let written = 0;
    await io.write('[');
    for await (const chunk of deps.exportPets.execute()) {
      let text = '';
      for (const pet of chunk) {
        text += `${written === 0 ? '\n' : ',\n'}${petJson(pet)}`;
        written += 1;
        if (written % EXPORT_PROGRESS_STEP === 0) io.progress.show(`exported ${count(written)} pets`);
      }
      await io.write(text);
    }
    await io.write(written === 0 ? ']\n' : '\n]\n');
    return ok({ stdout: [], note: `exported ${count(written)} pets` });
  },
};

export const ordersImport: AdminCommand = {
  name: 'orders import',
  synopsis: 'orders import FILE.json',
  help: `Usage: petstore orders import FILE.json

Adds the orders of a JSON file in UTF-8: an array of objects with id, petId, quantity (1 or more),
shipDate (ISO 8601 date-time), status (placed, approved or delivered) and complete (true or false). Ids
are kept exact however large. Prints the number of orders added. An id already stored or given twice,
an order of a pet the store does not have, a byte that is not UTF-8, or any invalid entry, is refused.
${ALL_OR_NONE}`,
  options: [],
  positionals: ['FILE.json'],
  run: importFrom(
    'orders',
    async () => (await import('./import-schemas.js')).orderEntry,
    (deps, batches) => deps.importOrders.execute(batches),
  ),
};
