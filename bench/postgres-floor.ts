/**
 * Whether a PATCH rate of `share` × bare Koa's can be reached over PostgreSQL on this machine at all.
 * In one run, on one PostgreSQL server:
 * - bare Koa's PATCH (the HTTP section's baseline): its rate, and the CPU the load generator (this
 *   process, autocannon) spends a request;
 * - the floor: the least a stock write can ask of PostgreSQL, run by pgbench (C, prepared statements,
 *   10 clients) on a table of 100 pets and their history: a read of the row, then one statement that
 *   updates it and inserts its history row, each in a transaction of its own, as the service writes,
 *   without the service's columns, conditions, holds, idempotency, stamp or outbox. PostgreSQL's CPU a
 *   write is sampled from /proc while pgbench runs (its backends are gone once it exits);
 * - the service's stock write over the same server, without HTTP (`InventoryRepository.write`, 10 at a
 *   time on 100 pets, as bench/postgres-write-cost.ts): PostgreSQL's CPU and this process's a write.
 * Then the CPU a PATCH at that rate would need each second: PostgreSQL at its floor, the service at the
 * issue's target of 250 µs a request, and the load generator, against the CPUs the machine has. Prints
 * only. Usage: node --import tsx bench/postgres-floor.ts [seconds=8] [share=0.35]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startPostgresServer } from '../tests/support/postgres-server.js';
import { LIST_PETS, patchRequests } from './http.js';
import { runLoad } from './load.js';
import { benchPet, startBaseline } from './petstore.js';
import { postmasterOf, serverCpuSeconds } from './postgres-cpu.js';
import { table } from './stats.js';

const seconds = Number(process.argv[2] ?? '8');
const share = Number(process.argv[3] ?? '0.35');
const PGBENCH = join(process.env.PETSTORE_PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pgbench');
const CLIENTS = 10;
/** The issue's target for the service's own CPU a PATCH over PostgreSQL. */
const SERVICE_TARGET_US = 250;
const PETS = 100;

const FLOOR_SCHEMA = `
  CREATE TABLE pets (id bigint PRIMARY KEY, quantity int NOT NULL, status text NOT NULL, version int NOT NULL);
  INSERT INTO pets SELECT g, 10, 'available', 1 FROM generate_series(1, ${PETS}) g;
  CREATE TABLE stock_changes (id bigserial PRIMARY KEY, pet_id bigint NOT NULL REFERENCES pets (id),
    before_quantity int NOT NULL, after_quantity int NOT NULL, actor text NOT NULL, at_ms bigint NOT NULL);`;

const FLOOR_SCRIPT = `\\set id random(1, ${PETS})
\\set q random(0, 1000)
SELECT quantity, status, version FROM pets WHERE id = :id;
WITH u AS (UPDATE pets SET quantity = :q, version = version + 1 WHERE id = :id RETURNING id, quantity)
  INSERT INTO stock_changes (pet_id, before_quantity, after_quantity, actor, at_ms)
  SELECT id, 10, quantity, 'key_floor', 0 FROM u;
`;

/** A session on `url`, with the pid of its server's postmaster. */
async function connect(url: string): Promise<{ client: pg.Client; postmaster: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return { client, postmaster: await postmasterOf(client) };
}

/** Transactions committed in the session's database so far. */
async function commits(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ n: string }>(
    'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.n);
}

/** Bare Koa's PATCH: requests a second, and this process's CPU (the load generator's) a request. */
async function bareKoa(dir: string): Promise<{ rps: number; generatorUs: number }> {
  await writeFile(join(dir, 'body.json'), '{"items":[]}');
  const server = await startBaseline('baseline', join(dir, 'body.json'), join(dir, 'baseline.log'));
  try {
    const requests = patchRequests(LIST_PETS, 50);
    await runLoad(server, requests, {}, 2);
    const before = cpuUsage();
    const run = await runLoad(server, requests, {}, seconds);
    const used = cpuUsage(before);
    return { rps: run.rps, generatorUs: (used.user + used.system) / run.requests };
  } finally {
    await server.stop();
  }
}

/** pgbench's writes a second and PostgreSQL's CPU a write, sampled over the middle of its run. */
async function floor(url: string, dir: string): Promise<{ rps: number; postgresUs: number }> {
  const { client, postmaster } = await connect(url);
  try {
    await client.query(FLOOR_SCHEMA);
    const script = join(dir, 'floor.sql');
    await writeFile(script, FLOOR_SCRIPT);
    const args = [
      '-n',
      '-M',
      'prepared',
      '-c',
      String(CLIENTS),
      '-j',
      '2',
      '-T',
      String(seconds + 3),
      '-f',
      script,
      url,
    ];
    const pgbench = spawn(PGBENCH, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => pgbench.on('exit', resolve));
    await sleep(1_500);
    const [cpu0, commits0, t0] = [serverCpuSeconds(postmaster), await commits(client), performance.now()];
    await sleep(seconds * 1000);
    const [cpu1, commits1, t1] = [serverCpuSeconds(postmaster), await commits(client), performance.now()];
    if ((await exited) !== 0) throw new Error('pgbench failed');
    // Two transactions a write (the read and the statement); the sampling adds two of its own.
    const writes = (commits1 - commits0 - 2) / 2;
    return { rps: writes / ((t1 - t0) / 1000), postgresUs: ((cpu1 - cpu0) * 1e6) / writes };
  } finally {
    await client.end();
  }
}

/** The service's stock write over PostgreSQL: writes a second, and PostgreSQL's and this process's CPU a write. */
async function serviceWrite(url: string): Promise<{ rps: number; postgresUs: number; serviceUs: number }> {
  const storage = await openPostgresStorage({ url });
  const { client, postmaster } = await connect(url);
  try {
    await storage.pets.addAll(Array.from({ length: PETS }, (_, i) => benchPet(i)));
    const round = async (until: number) => {
      let n = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (performance.now() < until) {
            const at = n++;
            await storage.inventory.write({
              orders: [{ kind: 'set', petId: petId(BigInt(1 + (at % PETS))), quantity: quantity(at % 7) }],
              actor: 'key_bench',
              atMs: Date.now(),
            });
          }
        }),
      );
      return n;
    };
    await round(performance.now() + 1_500);
    const [cpu0, before, t0] = [serverCpuSeconds(postmaster), cpuUsage(), performance.now()];
    const writes = await round(t0 + seconds * 1000);
    const used = cpuUsage(before);
    const [cpu1, t1] = [serverCpuSeconds(postmaster), performance.now()];
    return {
      rps: writes / ((t1 - t0) / 1000),
      postgresUs: ((cpu1 - cpu0) * 1e6) / writes,
      serviceUs: (used.user + used.system) / writes,
    };
  } finally {
    await client.end();
    await storage.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'petstore-pg-floor-'));
const server = await startPostgresServer();
try {
  const koa = await bareKoa(dir);
  const least = await floor(await server.createDatabase(), dir);
  const service = await serviceWrite(await server.createDatabase());
  const f0 = (x: number): string => x.toFixed(0);
  process.stdout.write(
    `${table(
      ['what', 'writes or requests a second', 'PostgreSQL CPU µs a write', 'this process CPU µs a write or request'],
      [
        ['bare Koa PATCH (this process: the load generator)', f0(koa.rps), '-', f0(koa.generatorUs)],
        [`floor: pgbench, read + update/insert, ${CLIENTS} clients`, f0(least.rps), f0(least.postgresUs), '-'],
        [
          `service: InventoryRepository.write, ${CLIENTS} at a time`,
          f0(service.rps),
          f0(service.postgresUs),
          f0(service.serviceUs),
        ],
      ],
    )}\n`,
  );
  const target = share * koa.rps;
  const need = (postgresUs: number, serviceUs: number): string =>
    ((target * (postgresUs + serviceUs + koa.generatorUs)) / 1e6).toFixed(2);
  process.stdout.write(
    `\n${share} of bare Koa's PATCH rate: ${f0(target)} a second. CPUs it needs (the machine has ${availableParallelism()}):\n` +
      `- PostgreSQL at the floor, the service at ${SERVICE_TARGET_US} µs, the load generator: ${need(least.postgresUs, SERVICE_TARGET_US)}\n` +
      `- PostgreSQL and the service as measured here (no HTTP), the load generator: ${need(service.postgresUs, service.serviceUs)}\n` +
      `The floor's own rate, PostgreSQL and pgbench alone on the machine: ${f0(least.rps)} a second, ` +
      `${(least.rps / koa.rps).toFixed(2)} of bare Koa's.\n`,
  );
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
