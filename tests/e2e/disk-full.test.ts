import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStorage } from '../../src/adapters/sqlite/sqlite-storage.js';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';
import { systemClock } from '../../src/adapters/system/system-clock.js';
import { IssueApiKey } from '../../src/application/use-cases/issue-api-key.js';
import { aPet } from '../../src/testing/index.js';
import { type ServiceProcess, startService } from '../../support/service-process.js';

/*
 * A disk that fills up under the running service: a small tmpfs holds the database. Mounting one needs
 * root (or CAP_SYS_ADMIN); where the machine refuses, the suite is skipped with a warning, under CI too,
 * since no setting of the project can give it the right.
 */

/** Mounts a tmpfs of `megabytes` on a new folder; undefined when this machine does not allow it. */
function mountTmpfs(dir: string, megabytes: number): boolean {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m,mode=0755`, 'tmpfs', dir], {
    stdio: 'ignore',
  });
  return mounted.error === undefined && mounted.status === 0;
}

const probeDir = await mkdtemp(join(tmpdir(), 'petstore-tmpfs-probe-'));
const canMount = mountTmpfs(probeDir, 1);
if (canMount) spawnSync('umount', [probeDir]);
await rm(probeDir, { recursive: true, force: true });
if (!canMount) console.warn('disk-full suite skipped: this machine does not allow mounting a tmpfs (needs root)');

/** Writes zeros to `path` until the file system has no room left. */
function fillUp(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(!canMount)('a disk that fills up under the service (SQLite)', () => {
  let dir: string;
  let path: string;
  let key: string;
  let service: ServiceProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-disk-full-'));
    if (!mountTmpfs(dir, 8)) throw new Error(`could not mount a tmpfs on ${dir}`);
    path = join(dir, 'petstore.db');
    const storage = openSqliteStorage({ path });
    try {
      await storage.pets.addAll([aPet(1), aPet(2)]);
      const crypto = new NodeKeyCrypto();
      key = (await new IssueApiKey(storage.keys, crypto, crypto, systemClock).execute({ plan: 'business' })).key;
    } finally {
      await storage.close();
    }
    service = await startService({ PETSTORE_DB: path, PETSTORE_ENV: 'production' });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    if (dir !== undefined) {
      spawnSync('umount', [dir]);
      await rm(dir, { recursive: true, force: true });
    }
  });

  const patch = (quantity: number) =>
    fetch(`${service.url}/v1/inventory/1`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ quantity }),
    });

  it('answers 503 with Retry-After, names the file in the log, turns unready, and recovers once there is room', async () => {
    expect((await patch(10)).status).toBe(200);
    const filler = join(dir, 'filler');
    fillUp(filler);

    // The write-ahead log has some room left in its last page; the writes soon need a new one.
    let refused: Response | undefined;
    for (let quantity = 11; quantity < 200 && refused === undefined; quantity += 1) {
      const response = await patch(quantity);
      if (response.status !== 200) refused = response;
      else await response.arrayBuffer();
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
    expect(await refused?.json()).toMatchObject({ code: 'unavailable', status: 503 });
    // The log is written asynchronously: its line may land a moment after the answer.
    await expect
      .poll(() => service.stdout(), { timeout: 5_000 })
      .toContain(`PETSTORE_DB=${path}: database or disk is full`);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    // Reads go on.
    expect((await fetch(`${service.url}/v1/inventory/1`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );

    await unlink(filler);
    const again = await patch(500);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ quantity: 500 });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    await expect.poll(() => service.stdout(), { timeout: 5_000 }).toContain('sqlite written again');
  }, 60_000);
});
