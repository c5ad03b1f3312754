import { looksLikeApiKey, type Principal } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { KeyHasher } from '../ports/key-crypto.js';

export interface AuthenticateInput {
  /** The bearer token as sent. */
  readonly apiKey: string;
}

const UNAUTHORIZED = fail(domainError('unauthorized', 'the API key is missing, invalid or revoked'));

/** Turns a bearer key into the principal it stands for; unknown, malformed and revoked keys fail alike. */
export class Authenticate {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly hasher: KeyHasher,
  ) {}

  async execute(input: AuthenticateInput): Promise<Result<Principal, DomainError<'unauthorized'>>> {
    // A token that cannot be a key is refused before hashing: no store lookup for junk.
    if (!looksLikeApiKey(input.apiKey)) return UNAUTHORIZED;
    const record = await this.keys.findByHash(this.hasher.hash(input.apiKey));
    if (record === undefined || record.revokedAtMs !== null) return UNAUTHORIZED;
    return ok({ keyId: record.id, plan: record.plan, policy: record.policy });
  }
}
