import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATEGORY_NAME_MAX, PET_NAME_MAX, PHOTO_URL_MAX, PHOTO_URLS_MAX, TAGS_MAX } from '../../src/domain/pet.js';
import { petId } from '../../src/domain/pet-id.js';
import { quantity } from '../../src/domain/quantity.js';
import { aPet, INT64_MAX, INT64_MIN } from '../../src/testing/index.js';
import { type CliHarness, cliHarness, expectRefused } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = await cliHarness();
});
afterEach(async () => {
  await cli.close();
});

const pet = (id: number | bigint, extra = ''): string =>
  `{"id": ${id}, "name": "pet ${id}", "quantity": 2, "status": "available"${extra}}`;
const manyPets = (n: number, last = pet(n)): string =>
  `[${Array.from({ length: n - 1 }, (_, i) => pet(i + 1)).join(',\n')},\n${last}]`;

describe('pets import reads the file as a stream, all or nothing', () => {
  it('adds 20,000 pets read in many chunks and batches', async () => {
    const result = await cli.run('pets', 'import', await cli.file('pets.json', manyPets(20_000)));
    expect(result).toMatchObject({ code: 0, stdout: '20000\n' });
    expect(cli.tables().pets).toHaveLength(20_000);
  });

  it.each([
    [
      'an invalid last entry',
      manyPets(20_000, pet(20_000, ', "colour": "red"')),
      '[19999].colour is not a known field',
    ],
    ['a duplicate of the first id as the last entry', manyPets(20_000, pet(1)), 'pet id 1 is given twice'],
    ['a file cut short after its last entry', manyPets(20_000).slice(0, -1), 'Unexpected end of input at byte'],
  ])('writes nothing when it finds %s', async (_case, content, fragment) => {
    await expectRefused(cli, ['pets', 'import', await cli.file('pets.json', content)], fragment);
  });

  it('writes nothing when the last entry names an id already stored', async () => {
    await cli.storage.pets.addAll([aPet(20_000)]);
    await expectRefused(cli, ['pets', 'import', await cli.file('p.json', manyPets(20_000))], 'id 20000 already exists');
  });
});

describe('pets import refuses a file that is not UTF-8, naming the byte', () => {
  const latin1 = Buffer.from('[{"id": 1, "name": "Caf\u00e9", "quantity": 1, "status": "available"}]', 'latin1');
  const offset = latin1.indexOf(0xe9);

  it('refuses Latin-1, where it used to store U+FFFD', async () => {
    const path = await cli.file('latin1.json', latin1);
    await expectRefused(
      cli,
      ['pets', 'import', path],
      `${path} is not UTF-8 text: Byte 0xE9 begins no valid UTF-8 sequence at byte ${offset} ([0].name); save it as UTF-8`,
    );
  });

  it('takes the same text in UTF-8, with or without a byte-order mark', async () => {
    const utf8 = `[${pet(1).replace('pet 1', 'Caf\u00e9')}]`;
    expect((await cli.run('pets', 'import', await cli.file('a.json', utf8))).code).toBe(0);
    expect((await cli.run('pets', 'import', await cli.file('b.json', `\uFEFF[${pet(2)}]`))).code).toBe(0);
    expect((await cli.storage.pets.get(petId(1n)))?.name).toBe('Caf\u00e9');
  });

  it('refuses an orders file the same way', async () => {
    await cli.storage.pets.addAll([aPet(1)]);
    const order = Buffer.from(
      '[{"id": 1, "petId": 1, "quantity": 1, "shipDate": "2026-03-01T12:00:00Z", "status": "placed\u00ff", "complete": false}]',
      'latin1',
    );
    const path = await cli.file('orders.json', order);
    await expectRefused(cli, ['orders', 'import', path], `byte ${order.indexOf(0xff)} ([0].status)`);
  });
});

describe('import files refuse fields past the domain limits, with a message naming the field', () => {
  it.each([
    ['a name too long', pet(1).replace('"pet 1"', `"${'n'.repeat(PET_NAME_MAX + 1)}"`), '[0].name must be at most 200'],
    ['an empty name', pet(1).replace('"pet 1"', '""'), '[0].name must not be empty'],
    [
      'a category name too long',
      pet(1, `, "category": {"id": 1, "name": "${'c'.repeat(CATEGORY_NAME_MAX + 1)}"}`),
      '[0].category.name must be at most 100 characters (it has 101)',
    ],
    [
      'a photo URL too long',
      pet(1, `, "photoUrls": ["${'u'.repeat(PHOTO_URL_MAX + 1)}"]`),
      '[0].photoUrls[0] must be at most 2048 characters',
    ],
    ['a NUL in a name', pet(1).replace('"pet 1"', '"pet\\u00001"'), '[0].name holds a control character'],
    [
      'a bidirectional isolate in a name',
      pet(1).replace('"pet 1"', '"pet\\u20661"'),
      '[0].name holds a control character',
    ],
    ['markup in a tag name', pet(1, ', "tags": [{"id": 1, "name": "<b>x</b>"}]'), '[0].tags[0].name holds < or >'],
    [
      'a javascript: photo URL',
      pet(1, ', "photoUrls": ["javascript:alert(1)"]'),
      '[0].photoUrls[0] is not an http or https URL',
    ],
    [
      'a data: photo URL',
      pet(1, ', "photoUrls": ["data:image/png;base64,AAAA"]'),
      '[0].photoUrls[0] is not an http or https URL',
    ],
    [
      'too many photo URLs',
      pet(
        1,
        `, "photoUrls": [${Array(PHOTO_URLS_MAX + 1)
          .fill('"https://example.test/u.jpg"')
          .join(',')}]`,
      ),
      '[0].photoUrls must hold at most 100 strings (it has 101)',
    ],
    [
      'too many tags',
      pet(
        1,
        `, "tags": [${Array(TAGS_MAX + 1)
          .fill('{"id": 1, "name": "t"}')
          .join(',')}]`,
      ),
      '[0].tags must hold at most 100 {id, name}',
    ],
    [
      'a name of megabytes, cut off while read',
      pet(1).replace('"pet 1"', `"${'n'.repeat(3_000_000)}"`),
      'holds more than an import takes: A string longer than 65536 bytes at byte 19 ([0].name)',
    ],
    ['5,000 opening brackets', '['.repeat(5_000), 'holds more than an import takes: Nested deeper than 64 levels'],
  ])('%s', async (_case, content, fragment) => {
    const file = content.startsWith('[') ? content : `[${content}]`;
    await expectRefused(cli, ['pets', 'import', await cli.file('pets.json', file)], fragment);
  });

  it('refuses a key label and a pet name past their limits on the command line', async () => {
    await expectRefused(
      cli,
      ['keys', 'create', '--plan', 'free', '--label', 'l'.repeat(201)],
      '--label must be at most 200 characters (got 201)',
    );
    await expectRefused(
      cli,
      ['pets', 'add', '--id', '1', '--name', 'n'.repeat(201)],
      '--name must be at most 200 characters (got 201)',
    );
  });
});

describe('progress on stderr', () => {
  it('shows how far an import has got when stderr is a terminal, then erases it', async () => {
    const path = await cli.file('pets.json', manyPets(20_000));
    const result = await cli.runOnTerminal('pets', 'import', path);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('20000\n');
    expect(result.stderr).toMatch(new RegExp(`^\\rreading ${path}: [0-9]+% of 1.5 MB, [0-9,]+ pets\x1b\\[K`));
    expect(result.stderr).toContain(`\rreading ${path}: 100% of 1.5 MB, 20,000 pets\x1b[K`);
    expect(result.stderr).toContain(`\rread 20,000 pets from ${path}; checking and writing them\x1b[K`);
    expect(result.stderr.endsWith(`\r\x1b[Kimported 20,000 pets from ${path}\n`)).toBe(true);
  });

  it('stays quiet when stderr is not a terminal', async () => {
    const path = await cli.file('pets.json', manyPets(20_000));
    expect((await cli.run('pets', 'import', path)).stderr).toBe(`imported 20,000 pets from ${path}\n`);
  });

  it('erases the progress line before a refusal', async () => {
    const result = await cli.runOnTerminal('pets', 'import', await cli.file('p.json', manyPets(20_000, pet(1))));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('\r\x1b[Kerror: ');
    expect(result.stderr.endsWith('pet id 1 is given twice\n')).toBe(true);
  });
});

describe('pets export', () => {
  it('writes an empty array for an empty catalogue', async () => {
    expect(await cli.run('pets', 'export')).toEqual({ code: 0, stdout: '[]\n', stderr: 'exported 0 pets\n' });
  });

  it('writes every pet with its stock, one a line by id, every field and id exact', async () => {
    await cli.storage.pets.addAll([
      aPet(INT64_MAX, {
        name: 'Rex "the" dog',
        quantity: quantity(0),
        status: 'sold',
        category: { id: INT64_MIN, name: 'Dogs' },
        photoUrls: ['https://example.test/a.jpg', 'http://example.test/b'],
        tags: [{ id: 9007199254740993n, name: 'calm' }],
      }),
      aPet(-1, { status: 'pending', name: 'Caf\u00e9 \u{1F600}' }),
    ]);
    const result = await cli.run('pets', 'export');
    expect(result).toMatchObject({ code: 0, stderr: 'exported 2 pets\n' });
    expect(result.stdout).toBe(
      [
        '[',
        '{"id":-1,"name":"Caf\u00e9 \u{1F600}","quantity":5,"status":"pending"},',
        `{"id":${INT64_MAX},"name":"Rex \\"the\\" dog","quantity":0,"status":"sold","category":{"id":${INT64_MIN},"name":"Dogs"},` +
          '"photoUrls":["https://example.test/a.jpg","http://example.test/b"],"tags":[{"id":9007199254740993,"name":"calm"}]}',
        ']',
        '',
      ].join('\n'),
    );
  });

  it('is what pets import reads: a round trip into another database loses nothing', async () => {
    const pets = Array.from({ length: 2_500 }, (_, i) =>
      aPet(9007199254740993n + BigInt(i) * 7n, {
        quantity: quantity(i),
        // The opening rule: a pet without stock is sold.
        ...(i === 0 ? { status: 'sold' as const } : {}),
        ...(i % 3 === 0 ? { tags: [{ id: INT64_MIN + BigInt(i), name: `tag ${i}` }] } : {}),
      }),
    );
    await cli.storage.pets.addAll(pets);
    const first = await cli.run('pets', 'export');
    const other = await cliHarness();
    try {
      expect(await other.run('pets', 'import', await other.file('export.json', first.stdout))).toMatchObject({
        code: 0,
        stdout: '2500\n',
      });
      expect((await other.run('pets', 'export')).stdout).toBe(first.stdout);
      expect(other.tables().pets).toEqual(cli.tables().pets);
    } finally {
      await other.close();
    }
  });

  it('shows its count on a terminal, and takes no argument', async () => {
    await cli.storage.pets.addAll(Array.from({ length: 10_000 }, (_, i) => aPet(i + 1)));
    const result = await cli.runOnTerminal('pets', 'export');
    expect(result.stderr).toBe('\rexported 10,000 pets\x1b[K\r\x1b[Kexported 10,000 pets\n');
    await expectRefused(cli, ['pets', 'export', 'out.json'], '"pets export" takes no arguments, got out.json');
  });
});
