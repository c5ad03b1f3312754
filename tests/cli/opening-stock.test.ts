import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openingStockProblem } from '../../src/domain/inventory-item.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet } from '../../src/testing/index.js';
import { type CliHarness, cliHarness, expectRefused } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

/** Every opening the rule refuses, with the words it refuses it in. */
const REFUSED = [
  ['available', 0, 'status available contradicts quantity 0: a pet without stock is sold'],
  ['pending', 0, 'status pending contradicts quantity 0: a pet without stock is sold'],
  ['sold', 3, 'status sold contradicts quantity 3: a pet with stock is not sold'],
] as const;

describe('a pet opens as the stock rule would leave it: sold without stock, and only then (one rule for the core, pets add and pets import)', () => {
  it('lets every other opening through', () => {
    expect(openingStockProblem('sold', quantity(0))).toBeUndefined();
    expect(openingStockProblem('available', quantity(1))).toBeUndefined();
    expect(openingStockProblem('pending', quantity(1))).toBeUndefined();
  });

  it.each(REFUSED)('the core refuses %s with %i in stock, adding nothing', async (status, stock, problem) => {
    const pets = [aPet(1), aPet(2, { status, quantity: quantity(stock) })];
    await expect(cli.core.addPets.execute(pets)).rejects.toThrow(new RangeError(`pet 2: ${problem}`));
    async function* batches() {
      yield pets;
    }
    await expect(cli.core.addPets.execute(batches())).rejects.toThrow(`pet 2: ${problem}`);
    expect(cli.tables().pets).toEqual([]);
  });

  it.each(REFUSED)('pets add refuses %s with %i in stock', async (status, stock, problem) => {
    const flags = ['--id', '1', '--name', 'Rex', '--quantity', String(stock), '--status', status];
    await expectRefused(cli, ['pets', 'add', ...flags], `--${problem}`);
  });

  it.each(REFUSED)('pets import refuses %s with %i in stock, naming the entry', async (status, stock, problem) => {
    const file = `[{"id": 1, "name": "Rex", "quantity": 2, "status": "available"},
      {"id": 2, "name": "Tom", "quantity": ${stock}, "status": "${status}"}]`;
    await expectRefused(cli, ['pets', 'import', await cli.file('pets.json', file)], `[1] ${problem}`);
  });
});
