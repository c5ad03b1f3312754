import { type ApiKeyRecord, looksLikeApiKey } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { KeyHasher } from '../ports/key-crypto.js';
import { SYSTEM_ACTOR } from './issue-api-key.js';

/** Revokes a key, named by its id or by the key itself. A revoked key fails authentication at once. */
export class RevokeApiKey {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: {
    readonly idOrKey: string;
    /** Who revokes it, for the audit trail; SYSTEM_ACTOR when absent. */
    readonly actor?: string;
  }): Promise<Result<ApiKeyRecord, DomainError<'key_not_found'>>> {
    const found = looksLikeApiKey(input.idOrKey)
      ? await this.keys.findByHash(await this.hasher.hash(input.idOrKey))
      : await this.keys.findById(input.idOrKey);
    const revoked =
      found === undefined
        ? undefined
        : await this.keys.revoke(found.id, { actor: input.actor ?? SYSTEM_ACTOR, atMs: this.clock.nowMs() });
    if (revoked === undefined) return fail(domainError('key_not_found', 'no API key has that id or value'));
    return ok(revoked);
  }
}
