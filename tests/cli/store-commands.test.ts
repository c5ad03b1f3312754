import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petId } from '../../src/domain/pet-id.js';
import { aPet, drain, INT64_MAX, INT64_MIN } from '../../src/testing/index.js';
import { type CliHarness, cliHarness, expectRefused } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

// 2^53 + 1: the first integer a JavaScript number cannot hold, so JSON.parse would read 9007199254740992.
const BEYOND_2_53 = '9007199254740993';

const petsFile = (entries: string): Promise<string> => cli.file('pets.json', `[${entries}]`);
const pet = (id: string, extra = ''): string =>
  `{"id": ${id}, "name": "pet ${id}", "quantity": 2, "status": "available"${extra}}`;
const order = (id: string, pet: string, extra = ''): string =>
  `{"id": ${id}, "petId": ${pet}, "quantity": 1, "shipDate": "2026-03-01T12:00:00Z", "status": "placed", "complete": false${extra}}`;

describe('pets add', () => {
  it('adds a pet and prints it as one JSON line, int64 extremes exact', async () => {
    const result = await cli.run('pets', 'add', '--id', INT64_MAX.toString(), '--name', 'Rex', '--quantity', '4');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`{"id":${INT64_MAX},"name":"Rex","quantity":4,"status":"available"}\n`);
    expect(result.stderr).toBe(`added pet ${INT64_MAX}\n`);
    expect((await cli.run('pets', 'add', '--id', INT64_MIN.toString(), '--name', 'Min')).code).toBe(0);
    expect((await cli.run('pets', 'add', `--id=-1`, '--name', 'Minus one')).code).toBe(0);
    const { items } = await drain(cli.storage.inventory.list());
    expect(items).toEqual([
      { petId: INT64_MIN, quantity: 0, status: 'sold', reserved: 0 },
      { petId: -1n, quantity: 0, status: 'sold', reserved: 0 },
      { petId: INT64_MAX, quantity: 4, status: 'available', reserved: 0 },
    ]);
  });

  it('takes the status given', async () => {
    expect(
      (await cli.run('pets', 'add', '--id', '5', '--name', 'Tom', '--quantity', '2', '--status', 'pending')).code,
    ).toBe(0);
    expect((await cli.storage.pets.get(petId(5n)))?.status).toBe('pending');
  });

  describe('refuses bad input, writing nothing', () => {
    it.each([
      ['no id', ['--name', 'Rex'], 'option --id is required'],
      ['no name', ['--id', '1'], 'option --name is required'],
      ['a word for an id', ['--id', 'abc', '--name', 'Rex'], '--id must be a whole number from -9223372036854775808'],
      ['a fractional id', ['--id', '1.5', '--name', 'Rex'], '(got "1.5")'],
      ['an id past int64', ['--id', '9223372036854775808', '--name', 'Rex'], '(got "9223372036854775808")'],
      ['a negative quantity', ['--id', '1', '--name', 'Rex', '--quantity', '-1'], '--quantity must be a whole number'],
      ['a fractional quantity', ['--id', '1', '--name', 'Rex', '--quantity', '2.5'], '(got "2.5")'],
      ['an unknown status', ['--id', '1', '--name', 'Rex', '--status', 'lost'], '--status must be one of'],
      ['an unknown option', ['--id', '1', '--name', 'Rex', '--colour', 'red'], 'unknown option --colour'],
      [
        'a name that is not UTF-8 (Node reads its bytes as U+FFFD)',
        ['--id', '1', '--name', 'Caf\uFFFD'],
        'argument 4 is not valid UTF-8 text',
      ],
      [
        'a name with a control character',
        ['--id', '1', '--name', 'Re\u001bx'],
        '--name must not hold a control character',
      ],
      [
        'a name with a right-to-left override',
        ['--id', '1', '--name', 'Re\u202ex'],
        '--name must not hold a control character',
      ],
      ['a name with markup', ['--id', '1', '--name', '<b>Rex</b>'], '--name holds < or >'],
      [
        'a status for sale without stock',
        ['--id', '1', '--name', 'Rex', '--status', 'available'],
        '--status available contradicts quantity 0',
      ],
      [
        'a status pending without stock',
        ['--id', '1', '--name', 'Rex', '--quantity', '0', '--status', 'pending'],
        '--status pending contradicts quantity 0',
      ],
      [
        'sold with stock',
        ['--id', '1', '--name', 'Rex', '--quantity', '3', '--status', 'sold'],
        '--status sold contradicts quantity 3',
      ],
    ])('%s', async (_case, flags, fragment) => {
      await expectRefused(cli, ['pets', 'add', ...flags], fragment);
    });

    it('an argument of 100 KB, without repeating it', async () => {
      const huge = 'x'.repeat(100_000);
      await expectRefused(cli, ['pets', 'add', '--id', '1', '--name', huge], 'argument 4 is 100000 characters long');
      const result = await cli.run('keys', 'revoke', huge);
      expect(result.stderr.length).toBeLessThan(200);
    });

    it('an id already stored', async () => {
      await cli.storage.pets.addAll([aPet(1)]);
      await expectRefused(cli, ['pets', 'add', '--id', '1', '--name', 'Rex'], 'a pet with id 1 already exists');
    });
  });
});

describe('pets import', () => {
  it('adds every pet of the file, ids beyond 2^53 and every field exact, and prints the count', async () => {
    const path = await petsFile(
      [
        pet(BEYOND_2_53),
        pet(INT64_MAX.toString(), `, "category": {"id": ${BEYOND_2_53}, "name": "Dogs"}`),
        pet('-3', `, "photoUrls": ["https://example.test/a.jpg"], "tags": [{"id": ${INT64_MIN}, "name": "calm"}]`),
      ].join(','),
    );
    const result = await cli.run('pets', 'import', path);
    expect(result).toEqual({ code: 0, stdout: '3\n', stderr: `imported 3 pets from ${path}\n` });
    expect(await cli.storage.pets.get(petId(BigInt(BEYOND_2_53)))).toMatchObject({ name: `pet ${BEYOND_2_53}` });
    expect((await cli.storage.pets.get(petId(INT64_MAX)))?.category).toEqual({ id: BigInt(BEYOND_2_53), name: 'Dogs' });
    expect(await cli.storage.pets.get(petId(-3n))).toMatchObject({
      photoUrls: ['https://example.test/a.jpg'],
      tags: [{ id: INT64_MIN, name: 'calm' }],
    });
  });

  describe('refuses bad input, writing nothing', () => {
    it.each([
      ['malformed JSON', '[{"id": 1,', 'is not valid JSON'],
      ['a file that is not an array', '{"id": 1}', 'must hold a JSON array of pets'],
      ['a duplicate id in the file', `[${pet('1')},${pet('2')},${pet('1')}]`, 'pet id 1 is given twice'],
      ['an id past int64', `[${pet('1')},${pet('9223372036854775808')}]`, '[1].id must be a whole number'],
      ['a fractional id', `[${pet('1.5')}]`, '[0].id must be a whole number'],
      ['an id given as a string', '[{"id": "7", "name": "a", "quantity": 1, "status": "sold"}]', '[0].id must be'],
      ['a negative quantity', `[{"id": 1, "name": "a", "quantity": -1, "status": "sold"}]`, '[0].quantity must be'],
      ['a fractional quantity', `[{"id": 1, "name": "a", "quantity": 0.5, "status": "sold"}]`, '[0].quantity must be'],
      ['an unknown status', `[{"id": 1, "name": "a", "quantity": 1, "status": "lost"}]`, '[0].status must be one of'],
      ['a missing field', '[{"id": 1, "name": "a", "quantity": 1}]', '[0].status is missing'],
      ['an unknown field', `[${pet('1', ', "colour": "red"')}]`, '[0].colour is not a known field'],
      ['a bad tag id', `[${pet('1', ', "tags": [{"id": "x", "name": "t"}]')}]`, '[0].tags[0].id must be'],
    ])('%s', async (_case, content, fragment) => {
      await expectRefused(cli, ['pets', 'import', await cli.file('pets.json', content)], fragment);
    });

    it('an id already stored, after others that were fine', async () => {
      await cli.storage.pets.addAll([aPet(2)]);
      await expectRefused(cli, ['pets', 'import', await petsFile(`${pet('1')},${pet('2')}`)], 'id 2 already exists');
    });

    it('a missing file', async () => {
      const path = join(cli.dir, 'absent.json');
      await expectRefused(cli, ['pets', 'import', path], `cannot read ${path}: no such file`);
    });

    it('a call without a file', async () => {
      await expectRefused(cli, ['pets', 'import'], '"pets import" takes FILE.json, got none');
    });

    it('a file that opens but cannot be read, named in the message', async () => {
      await expectRefused(cli, ['pets', 'import', '/proc/self/mem'], 'cannot read /proc/self/mem: input/output error');
    });
  });
});

describe('one integer rule for counts: the CLI reads a quantity as PATCH does', () => {
  const withQuantity = (literal: string): string =>
    `[{"id": 1, "name": "a", "quantity": ${literal}, "status": "sold"}]`;

  it.each([
    ['a fraction a double would round to 5', '4.99999999999999999999'],
    ['a fraction just past the maximum', '2147483647.0000000000000001'],
    ['an exponent past the maximum', '3e9'],
  ])('pets import refuses %s, as PATCH does', async (_case, literal) => {
    await expectRefused(
      cli,
      ['pets', 'import', await cli.file('pets.json', withQuantity(literal))],
      '[0].quantity must be a whole number from 0 to 2147483647',
    );
  });

  it('pets import takes 5.0 and 1e1 as 5 and 10, as PATCH does', async () => {
    const path = await cli.file(
      'pets.json',
      '[{"id": 1, "name": "a", "quantity": 5.0, "status": "available"}, {"id": 2, "name": "b", "quantity": 1e1, "status": "available"}]',
    );
    expect((await cli.run('pets', 'import', path)).code).toBe(0);
    const { items } = await drain(cli.storage.inventory.list());
    expect(items.map((i) => i.quantity)).toEqual([5, 10]);
  });

  it('orders import refuses an order quantity a double would round', async () => {
    await cli.storage.pets.addAll([aPet(1)]);
    await expectRefused(
      cli,
      [
        'orders',
        'import',
        await cli.file(
          'orders.json',
          `[${order('1', '1').replace('"quantity": 1', '"quantity": 1.00000000000000000001')}]`,
        ),
      ],
      '[0].quantity must be a whole number from 1',
    );
  });

  it('options read counts by the same rule', async () => {
    await expectRefused(
      cli,
      ['pets', 'add', '--id', '1', '--name', 'Rex', '--quantity', '4.99999999999999999999'],
      '--quantity must be a whole number from 0 to 2147483647 (got "4.99999999999999999999")',
    );
    expect((await cli.run('pets', 'add', '--id', '1', '--name', 'Rex', '--quantity', '5.0')).stdout).toBe(
      '{"id":1,"name":"Rex","quantity":5,"status":"available"}\n',
    );
  });
});

describe('orders import', () => {
  beforeEach(async () => {
    await cli.storage.pets.addAll([aPet(1), aPet(INT64_MAX)]);
  });

  it('adds every order of the file, ids exact, and prints the count', async () => {
    const path = await cli.file(
      'orders.json',
      `[${order(BEYOND_2_53, INT64_MAX.toString(), '')},${order('2', '1').replace('"placed"', '"delivered"')}]`,
    );
    expect(await cli.run('orders', 'import', path)).toEqual({
      code: 0,
      stdout: '2\n',
      stderr: `imported 2 orders from ${path}\n`,
    });
    expect(await cli.storage.orders.list()).toEqual([
      { id: 2n, petId: 1n, quantity: 1, shipDate: '2026-03-01T12:00:00Z', status: 'delivered', complete: false },
      {
        id: BigInt(BEYOND_2_53),
        petId: INT64_MAX,
        quantity: 1,
        shipDate: '2026-03-01T12:00:00Z',
        status: 'placed',
        complete: false,
      },
    ]);
  });

  describe('refuses bad input, writing nothing', () => {
    it.each([
      ['malformed JSON', 'not json', 'is not valid JSON'],
      ['a file that is not an array', '"orders"', 'must hold a JSON array of orders'],
      ['a duplicate id in the file', `[${order('1', '1')},${order('1', '1')}]`, 'order id 1 is given twice'],
      ['an order of a missing pet', `[${order('1', '1')},${order('2', '99')}]`, 'order 2 names pet 99'],
      ['an unknown status', `[${order('1', '1').replace('"placed"', '"lost"')}]`, '[0].status must be one of placed'],
      ['a bad ship date', `[${order('1', '1').replace('2026-03-01T12:00:00Z', 'soon')}]`, '[0].shipDate must be'],
      ['a zero quantity', `[${order('1', '1').replace('"quantity": 1', '"quantity": 0')}]`, '[0].quantity must be'],
      ['a complete that is not a boolean', `[${order('1', '1').replace('false', '"no"')}]`, '[0].complete must be'],
    ])('%s', async (_case, content, fragment) => {
      await expectRefused(cli, ['orders', 'import', await cli.file('orders.json', content)], fragment);
    });

    it('an id already stored', async () => {
      await cli.storage.orders.addAll([
        { id: 5n, petId: petId(1n), quantity: 1, shipDate: 'x', status: 'placed', complete: true },
      ]);
      await expectRefused(cli, ['orders', 'import', await cli.file('o.json', `[${order('5', '1')}]`)], 'id 5 already');
    });

    it('a missing file', async () => {
      await expectRefused(cli, ['orders', 'import', join(cli.dir, 'none.json')], 'no such file');
    });
  });
});
