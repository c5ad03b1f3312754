import type { ApiKeyRecord } from '../../domain/api-key.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';

/** Every key, oldest first, without the keys themselves (they are not stored). */
export class ListApiKeys {
  constructor(private readonly keys: ApiKeyStore) {}

  execute(): Promise<readonly ApiKeyRecord[]> {
    return this.keys.list();
  }
}
