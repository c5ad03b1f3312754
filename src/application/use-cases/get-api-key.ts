import type { ApiKeyRecord } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';

/** One key by its id, without the key itself (it is not stored). */
export class GetApiKey {
  constructor(private readonly keys: ApiKeyStore) {}

  async execute(input: { readonly id: string }): Promise<Result<ApiKeyRecord, DomainError<'key_not_found'>>> {
    const found = await this.keys.findById(input.id);
    return found === undefined ? fail(domainError('key_not_found', 'no API key has that id')) : ok(found);
  }
}
