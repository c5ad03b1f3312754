import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A database path in a fresh temporary folder, and a way to remove the folder with all it holds. */
export interface TempDatabase {
  readonly dir: string;
  readonly path: string;
  remove(): Promise<void>;
}

export async function tempDatabase(): Promise<TempDatabase> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-sqlite-'));
  return {
    dir,
    path: join(dir, 'petstore.db'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
