import type { ApiKeyStore } from '../ports/api-key-store.js';

/**
 * The names of the keys that made some changes, as the keys are named now (see docs/decisions.md,
 * "Who made a change"): null for a key without a name, or one no longer stored. Each key is read once,
 * however many of the changes it made.
 */
export class NameKeys {
  constructor(private readonly keys: ApiKeyStore) {}

  async execute(keyIds: Iterable<string>): Promise<ReadonlyMap<string, string | null>> {
    const ids = [...new Set(keyIds)];
    const found = await Promise.all(ids.map((id) => this.keys.findById(id)));
    return new Map(ids.map((id, i) => [id, found[i]?.name ?? null]));
  }
}
