import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuUsage } from 'node:process';
import { openPostgresStorage } from '../src/adapters/postgres/postgres-storage.js';
import { petId } from '../src/domain/pet-id.js';
import { quantity } from '../src/domain/quantity.js';
import { startPostgresServer } from '../support/postgres-server.js';
import { LIST_PETS, patchRequests } from './http.js';
import { runLoad } from './load.js';
import { benchPet, startBaseline } from './petstore.js';
import { serverCpuSeconds } from './postgres-cpu.js';
import { CLIENTS, connect, floorWrite } from './postgres-floor-write.js';
import { table } from './stats.js';

const seconds = Number(process.argv[2] ?? '8');
const share = Number(process.argv[3] ?? '0.35');
/** The issue's target for the service's own CPU a PATCH over PostgreSQL. */
const SERVICE_TARGET_US = 250;
const PETS = 100;

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
  const least = await floorWrite(await server.createDatabase(), dir, seconds);
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
