/**
 * PostgreSQL's own floor for a stock write, run by pgbench (C, prepared statements, CLIENTS clients) on
 * a table of 100 pets and their history: a read of the row, then one statement that updates it and
 * inserts its history row, each in a transaction of its own, without the service's columns,
 * conditions, holds, idempotency, stamp or outbox. The postgres suite's baseline for writes.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { postmasterOf, serverCpuSeconds } from './postgres-cpu.js';

const PGBENCH = join(process.env.PETSTORE_PG_BIN ?? '/usr/lib/postgresql/15/bin', 'pgbench');
/** pgbench's clients. */
export const CLIENTS = 10;
const PETS = 100;

const FLOOR_SCHEMA = `
  CREATE TABLE IF NOT EXISTS pets (id bigint PRIMARY KEY, quantity int NOT NULL, status text NOT NULL, version int NOT NULL);
  INSERT INTO pets SELECT g, 10, 'available', 1 FROM generate_series(1, ${PETS}) g ON CONFLICT DO NOTHING;
  CREATE TABLE IF NOT EXISTS stock_changes (id bigserial PRIMARY KEY, pet_id bigint NOT NULL REFERENCES pets (id),
    before_quantity int NOT NULL, after_quantity int NOT NULL, actor text NOT NULL, at_ms bigint NOT NULL);`;

const FLOOR_SCRIPT = `\\set id random(1, ${PETS})
\\set q random(0, 1000)
SELECT quantity, status, version FROM pets WHERE id = :id;
WITH u AS (UPDATE pets SET quantity = :q, version = version + 1 WHERE id = :id RETURNING id, quantity)
  INSERT INTO stock_changes (pet_id, before_quantity, after_quantity, actor, at_ms)
  SELECT id, 10, quantity, 'key_floor', 0 FROM u;
`;

/** A session on `url`, with the pid of its server's postmaster. */
export async function connect(url: string): Promise<{ client: pg.Client; postmaster: number }> {
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

/** pgbench's writes a second and PostgreSQL's CPU a write, sampled over the middle of its run. */
export async function floorWrite(
  url: string,
  dir: string,
  seconds: number,
): Promise<{ rps: number; postgresUs: number }> {
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
      String(Math.ceil(seconds + 3)),
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
