/**
 * What one key's holds cost the others (issue "Hardening 3", items 1 and 2), on the service as
 * `npm start` runs it in production over SQLite, built from the checkout this runs from:
 * - how much of the stock one key can hold, and for how long, when it reserves all the stock of every
 *   pet for a day (and, refused that, for an hour), and what is left for another key;
 * - a PATCH of a pet with 10,000 holds still held against the same PATCH with none, and another pet's
 *   PATCH, on the service with the holds and on a twin without, measured in alternate windows.
 * Run by bench/attacks.ts (npm run bench:attacks), or alone: node --import tsx bench/hold-attacks.ts.
 */
import { pathToFileURL } from 'node:url';
import { openSqliteStorage } from '../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../src/application/use-cases/issue-api-key.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startService } from '../support/service-process.js';
import { tempDatabase } from '../support/temp-database.js';

/** The service over a fresh file of pets, with two keys without practical limits. */
interface Target {
  readonly url: string;
  readonly keys: readonly [string, string];
  stop(): Promise<void>;
}

async function startTarget(pets: readonly [id: number, stock: number][], env: Record<string, string>): Promise<Target> {
  const temp = await tempDatabase();
  const storage = openSqliteStorage({ path: temp.path });
  const keys: string[] = [];
  try {
    await storage.pets.addAll(
      pets.map(([id, stock]) => ({
        id: petId(BigInt(id)),
        name: `pet ${id}`,
        quantity: quantity(stock),
        status: 'available',
      })),
    );
    const crypto = new NodeKeyCrypto();
    const issue = new IssueApiKey(storage.keys, crypto, crypto, systemClock);
    for (let i = 0; i < 2; i += 1) {
      keys.push(
        (await issue.execute({ plan: 'enterprise', limits: { perMinute: 10_000_000, perDay: 100_000_000 } })).key,
      );
    }
  } finally {
    await storage.close();
  }
  const service = await startService({ PETSTORE_DB: temp.path, PETSTORE_ENV: 'production', ...env });
  return {
    url: service.url,
    keys: keys as unknown as [string, string],
    stop: async () => {
      await service.stop();
      await temp.remove();
    },
  };
}

const send = async (target: Target, key: string, method: string, path: string, body?: string) => {
  const response = await fetch(`${target.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body }),
  });
  await response.arrayBuffer();
  return response.status;
};

/** Runs `request(i)` for i in 0..count-1, `width` at a time; resolves to the statuses, in order. */
async function inParallel(count: number, width: number, request: (i: number) => Promise<number>): Promise<number[]> {
  const statuses: number[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) statuses[i] = await request(i);
    }),
  );
  return statuses;
}

const count = (statuses: readonly number[], status: number) => statuses.filter((s) => s === status).length;

/** Item 1: one key reserves everything; what it gets, for how long, and what another key still can. */
export async function holdsOneKeyTakes(): Promise<string[]> {
  const PETS = 2_000;
  const STOCK = 5;
  const target = await startTarget(
    Array.from({ length: PETS }, (_, i) => [i + 1, STOCK]),
    {},
  );
  try {
    const [attacker, other] = target.keys;
    const reserveAll = (key: string, ttlSeconds: number) => (i: number) =>
      send(target, key, 'POST', `/inventory/${i + 1}/reservations`, JSON.stringify({ quantity: STOCK, ttlSeconds }));
    const day = await inParallel(PETS, 16, reserveAll(attacker, 86_400));
    const hour = await inParallel(PETS, 16, reserveAll(attacker, 3_600));
    const others = await inParallel(PETS, 16, (i) =>
      send(target, other, 'POST', `/inventory/${i + 1}/reservations`, '{"quantity":1,"ttlSeconds":60}'),
    );
    const heldForDay = count(day, 201);
    const heldForHour = count(hour, 201);
    const longest = heldForDay > 0 ? 'a day' : heldForHour > 0 ? 'an hour' : 'nothing';
    return [
      `One key reserving all the stock of each of ${PETS} pets (${STOCK} each), 16 requests at a time:`,
      `- for a day: ${heldForDay} held, ${count(day, 400)} refused 400, ${count(day, 409)} refused 409;`,
      `  then for an hour: ${heldForHour} held, ${count(hour, 409)} refused 409;`,
      `- the key holds ${(heldForDay + heldForHour) * STOCK} of ${PETS * STOCK} units, for ${longest} at most;`,
      `- another key then reserved 1 unit of ${count(others, 201)} of the ${PETS} pets (${count(others, 409)} refused 409).`,
    ];
  } finally {
    await target.stop();
  }
}

/** Median and 99th percentile of `ms`, in milliseconds. */
const percentiles = (ms: number[]): { p50: number; p99: number } => {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
};

/** Each pet's PATCH latencies in one window, in ms. */
type Window = { readonly held: number[]; readonly none: number[]; readonly other: number[] };

/**
 * For `durationMs`: 2 clients PATCH pet 1 and 2 clients pet 3, back to back with one key, and 1 client
 * PATCHes pet 2 with another key; resolves to each pet's latencies. Pets 1 and 3 take the same load in
 * the same window, so their ratio is the holds' cost whatever else the machine does meanwhile.
 */
async function patchLoad(target: Target, durationMs: number): Promise<Window> {
  const [busy, other] = target.keys;
  const until = performance.now() + durationMs;
  const window: Window = { held: [], none: [], other: [] };
  const loop = async (key: string, pet: number, into: number[]) => {
    for (let i = 0; performance.now() < until; i += 1) {
      const start = performance.now();
      const status = await send(target, key, 'PATCH', `/inventory/${pet}`, `{"quantity":${20_000 + (i % 2)}}`);
      if (status !== 200) throw new Error(`PATCH of pet ${pet} answered ${status}`);
      into.push(performance.now() - start);
    }
  };
  await Promise.all([
    loop(busy, 1, window.held),
    loop(busy, 1, window.held),
    loop(busy, 3, window.none),
    loop(busy, 3, window.none),
    loop(other, 2, window.other),
  ]);
  return window;
}

/**
 * Item 2: PATCHes of a pet with 10,000 holds still held, against the same PATCHes on a twin service
 * whose 10,000 holds are of a pet nothing measured writes, and another key's PATCH of another pet on each. The two services run side by side
 * and are measured in alternate 1 s windows (A B, B A, ...), so that both see the same machine: the
 * ratio of the two is the holds' cost, whatever else the machine does meanwhile.
 */
export async function patchWithHolds(): Promise<string[]> {
  const HOLDS = 10_000;
  const ROUNDS = 10;
  const pets: [number, number][] = [
    [1, 20_000],
    [2, 20_000],
    [3, 20_000],
    [4, 20_000],
  ];
  // Every hold one key's: the cap is raised for this, to put the holds on one pet quickly.
  const env = { PETSTORE_MAX_HOLDS_PER_KEY: String(HOLDS) };
  const holding = await startTarget(pets, env);
  const twin = await startTarget(pets, env);
  try {
    // The twin gets as many holds, of pet 4, which nothing measured writes: both processes have done the
    // same work and hold the same rows, and the twin's pets 1 to 3 hold none.
    for (const [target, pet] of [
      [holding, 1],
      [twin, 4],
    ] as const) {
      const made = await inParallel(HOLDS, 16, () =>
        send(target, target.keys[1], 'POST', `/inventory/${pet}/reservations`, '{"quantity":1,"ttlSeconds":3600}'),
      );
      if (count(made, 201) !== HOLDS) throw new Error(`${count(made, 201)} of ${HOLDS} holds were made`);
    }
    await patchLoad(holding, 3_000);
    await patchLoad(twin, 3_000);
    const a: Window = { held: [], none: [], other: [] };
    const b: Window = { held: [], none: [], other: [] };
    const add = (into: Window, w: Window) => {
      into.held.push(...w.held);
      into.none.push(...w.none);
      into.other.push(...w.other);
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [holding, twin] : [twin, holding];
      for (const target of order) add(target === holding ? a : b, await patchLoad(target, 1_000));
    }
    const fmt = (n: number) => n.toFixed(1);
    const ratio = (x: number, y: number) => (x / y).toFixed(2);
    const row = (name: string, withHolds: number[], without: number[]) => {
      const x = percentiles(withHolds);
      const y = percentiles(without);
      return `| ${name} | ${fmt(x.p50)} | ${fmt(y.p50)} | ${ratio(x.p50, y.p50)} | ${fmt(x.p99)} | ${fmt(y.p99)} | ${ratio(x.p99, y.p99)} | ${withHolds.length} / ${without.length} |`;
    };
    return [
      `PATCH under load (2 clients on pet 1, 2 on pet 3, 1 on pet 2 with another key), on a service with ${HOLDS} holds still held on pet 1 and on its twin with ${HOLDS} on pet 4 instead, ${ROUNDS} alternate 1 s windows each:`,
      '',
      '| PATCH of | p50 ms, holds | p50 ms, twin | holds / twin | p99 ms, holds | p99 ms, twin | holds / twin | PATCHes, holds / twin |',
      '|---|---|---|---|---|---|---|---|',
      row('pet 1 (the holds)', a.held, b.held),
      row('pet 3 (none)', a.none, b.none),
      row('pet 2 (none, another key)', a.other, b.other),
    ];
  } finally {
    await holding.stop();
    await twin.stop();
  }
}

/** Both measures, as lines of the report. */
export async function holdAttacks(): Promise<string[]> {
  return [...(await holdsOneKeyTakes()), '', ...(await patchWithHolds())];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${(await holdAttacks()).join('\n')}\n`);
}
