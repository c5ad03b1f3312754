import type { ApiKeyRecord } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import { type ExpiryChoice, expiryAt } from './issue-api-key.js';

export interface SetKeyExpiryInput {
  readonly id: string;
  /** A time, or a span from now; a span of 0 ends the key now. */
  readonly expires: ExpiryChoice;
  readonly actor: string;
}

/**
 * Changes when a key that is not revoked expires: shortens its life, ends it now, or lengthens it. A
 * time in the past is refused (end a key now with a span of 0), so that a typo never looks like success.
 */
export class SetKeyExpiry {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly clock: Clock,
  ) {}

  async execute(
    input: SetKeyExpiryInput,
  ): Promise<Result<ApiKeyRecord, DomainError<'key_not_found' | 'key_inactive' | 'invalid_expiry'>>> {
    const nowMs = this.clock.nowMs();
    const atMs = expiryAt(input.expires, nowMs);
    if (atMs < nowMs) return fail(domainError('invalid_expiry', 'the expiry must not be in the past'));
    const found = await this.keys.findById(input.id);
    if (found === undefined) return fail(domainError('key_not_found', 'no API key has that id'));
    const changed = await this.keys.setExpiry(input.id, atMs, { actor: input.actor, atMs: nowMs });
    if (changed === undefined)
      return fail(domainError('key_inactive', 'the key is revoked; its expiry no longer matters'));
    return ok(changed);
  }
}
