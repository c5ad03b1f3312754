/**
 * node-postgres (`pg`, pipeline mode, as the store runs it) against the `postgres` package, in the same
 * run on one PostgreSQL server: the shape of a group commit's transaction, sent by each client with
 * its statements pipelined. A transaction is BEGIN, then `GROUP` locking reads of one pet each and a
 * nextval (one round trip), then one UPDATE of those pets over arrays with an INSERT of their history
 * rows, and COMMIT (a second round trip). `LANES` transactions run at once, in alternating rounds.
 * Prints transactions a second, this process's CPU and PostgreSQL's a transaction.
 * Usage: npm install --no-save postgres && node --import tsx bench/postgres-clients.ts [seconds=5] [rounds=3]
 */
import { cpuUsage } from 'node:process';
import pg from 'pg';
import { startPostgresServer } from '../support/postgres-server.js';
import { serverCpuSeconds } from './postgres-cpu.js';
import { connect } from './postgres-floor-write.js';
import { median, table } from './stats.js';

const seconds = Number(process.argv[2] ?? '5');
const rounds = Number(process.argv[3] ?? '3');
const PETS = 100;
const GROUP = 20;
const LANES = 2;

const SCHEMA = `
  CREATE TABLE pets (id bigint PRIMARY KEY, quantity int NOT NULL, version bigint NOT NULL);
  INSERT INTO pets SELECT g, 10, 1 FROM generate_series(1, ${PETS}) g;
  CREATE TABLE stock_changes (id bigserial PRIMARY KEY, pet_id bigint NOT NULL REFERENCES pets (id),
    after_quantity int NOT NULL, at_ms bigint NOT NULL);`;
const LOCK = 'SELECT id, quantity, version FROM pets WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE';
const IDS = "SELECT nextval('stock_changes_id_seq') FROM generate_series(1, $1::int)";
const WRITE = `WITH i AS (SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[]) AS i(id, quantity, change_id)),
  u AS (UPDATE pets p SET quantity = i.quantity, version = p.version + 1 FROM i WHERE p.id = i.id RETURNING p.id)
  INSERT INTO stock_changes (id, pet_id, after_quantity, at_ms) SELECT i.change_id, i.id, i.quantity, 0 FROM i JOIN u ON u.id = i.id`;

/** The part of the `postgres` package this comparison uses. */
type Tx = { unsafe(text: string, values: unknown[]): Promise<Record<string, unknown>[]> };
type PostgresJs = (
  url: string,
  options: Record<string, unknown>,
) => { begin(work: (tx: Tx) => Promise<void>): Promise<void>; end(): Promise<void> };

/** One transaction's statements, on whichever client: the locking read and ids, then the write. */
interface Client {
  transaction(ids: string, n: number, write: (changeIds: bigint[]) => unknown[]): Promise<void>;
  end(): Promise<void>;
}

const pets = (): number[] => {
  const chosen = new Set<number>();
  while (chosen.size < GROUP) chosen.add(1 + Math.floor(Math.random() * PETS));
  return [...chosen].sort((a, b) => a - b);
};

async function nodePostgres(url: string): Promise<Client> {
  const pool = new pg.Pool({ connectionString: url, max: LANES, pipeline: true } as pg.PoolConfig);
  return {
    async transaction(ids, n, write) {
      const client = await pool.connect();
      try {
        const begun = client.query('BEGIN');
        const [, , idRows] = await Promise.all([
          begun,
          client.query({ name: 'lock', text: LOCK, values: [ids] }),
          client.query({ name: 'ids', text: IDS, values: [n] }),
        ]);
        const changeIds = idRows.rows.map((row: { nextval: string }) => BigInt(row.nextval));
        await Promise.all([
          client.query({ name: 'write', text: WRITE, values: write(changeIds) }),
          client.query('COMMIT'),
        ]);
      } finally {
        client.release();
      }
    },
    end: () => pool.end(),
  };
}

async function postgresJs(url: string): Promise<Client> {
  // Not a dependency of the project: named at run time, so that typecheck needs no copy of it.
  const name = 'postgres';
  const module = (await import(name).catch(() => {
    throw new Error('the postgres package is missing: npm install --no-save postgres');
  })) as { default: PostgresJs };
  const postgres = module.default;
  const sql = postgres(url, { max: LANES, prepare: true, onnotice: () => {} });
  return {
    async transaction(ids, n, write) {
      await sql.begin(async (tx) => {
        // Sent at once: postgres pipelines a transaction's statements issued together.
        const [, idRows] = await Promise.all([tx.unsafe(LOCK, [ids]), tx.unsafe(IDS, [n])]);
        const changeIds = idRows.map((row) => BigInt(row.nextval as string));
        await tx.unsafe(WRITE, write(changeIds));
      });
    },
    end: () => sql.end(),
  };
}

/** Runs LANES loops of transactions for `seconds`: transactions a second, client CPU and PostgreSQL CPU µs a transaction. */
async function measure(client: Client, postmaster: number): Promise<[number, number, number]> {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const [cpu0, pg0, t0] = [cpuUsage(), serverCpuSeconds(postmaster), performance.now()];
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (performance.now() < until) {
        const ids = pets();
        await client.transaction(`{${ids.join(',')}}`, ids.length, (changeIds) => [
          `{${ids.join(',')}}`,
          `{${ids.map((id) => id % 50).join(',')}}`,
          `{${changeIds.join(',')}}`,
        ]);
        done += 1;
      }
    }),
  );
  const used = cpuUsage(cpu0);
  const elapsed = (performance.now() - t0) / 1000;
  return [done / elapsed, (used.user + used.system) / done, ((serverCpuSeconds(postmaster) - pg0) * 1e6) / done];
}

const server = await startPostgresServer();
try {
  const url = await server.createDatabase();
  const probe = await connect(url);
  await probe.client.query(SCHEMA);
  const clients: [string, Client][] = [
    ['pg 8 (pipeline mode)', await nodePostgres(url)],
    ['postgres 3', await postgresJs(url)],
  ];
  const results = new Map<string, [number, number, number][]>();
  for (const [, client] of clients) await measure(client, probe.postmaster);
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, client] of clients) {
      const run = await measure(client, probe.postmaster);
      results.set(name, [...(results.get(name) ?? []), run]);
      process.stdout.write(`round ${round + 1}, ${name}: ${run.map((x) => x.toFixed(0)).join(', ')}\n`);
    }
  }
  for (const [, client] of clients) await client.end();
  await probe.client.end();
  const rows = [...results].map(([name, runs]) => [
    name,
    ...[0, 1, 2].map((i) => median(runs.map((run) => run[i] as number)).toFixed(0)),
  ]);
  process.stdout.write(
    `${table(['client', `transactions a second (${GROUP} pets each)`, 'client CPU µs a transaction', 'PostgreSQL CPU µs a transaction'], rows)}\n`,
  );
} finally {
  await server.stop();
}
