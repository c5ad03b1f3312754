import { type ApiKeyRecord, keyStanding, looksLikeApiKey, type Principal, principalOf } from '../../domain/api-key.js';
import { type DomainError, domainError } from '../../domain/errors.js';
import { fail, ok, type Result } from '../../domain/result.js';
import type { ApiKeyStore } from '../ports/api-key-store.js';
import type { Clock } from '../ports/clock.js';
import type { KeyHasher } from '../ports/key-crypto.js';

export interface AuthenticateInput {
  /** The bearer token as sent. */
  readonly apiKey: string;
}

/** A key's principal, as `execute` answers it. */
type Authenticated = { readonly ok: true; readonly value: Principal };

const UNAUTHORIZED = fail(domainError('unauthorized', 'the API key is missing, invalid or revoked'));
const EXPIRED = fail(domainError('key_expired', 'the API key has expired; use its successor or ask for a new one'));

/**
 * Turns a bearer key into the principal it stands for. Unknown, malformed and revoked keys fail alike;
 * a key past its expiry (or past the grace of a roll) fails as expired, so that its holder knows to
 * switch keys rather than suspect a typo.
 */
export class Authenticate {
  /**
   * The answer for each record seen. A cached key store hands back one record for every request of a
   * key until it reads the key again, and the answer holds nothing of the request: it is built once.
   */
  private readonly principals = new WeakMap<ApiKeyRecord, Authenticated>();

  constructor(
    private readonly keys: ApiKeyStore,
    private readonly hasher: KeyHasher,
    private readonly clock: Clock,
  ) {}

  async execute(input: AuthenticateInput): Promise<Result<Principal, DomainError<'unauthorized' | 'key_expired'>>> {
    // A token that cannot be a key is refused before hashing: no store lookup for junk.
    if (!looksLikeApiKey(input.apiKey)) return UNAUTHORIZED;
    // Every request with a key comes here: a synchronous hasher (the server's) is not awaited, so it
    // costs no extra turn of the event loop; an asynchronous one (Web Crypto) is.
    const digest = this.hasher.hash(input.apiKey);
    const record = await this.keys.findByHash(typeof digest === 'string' ? digest : await digest);
    if (record === undefined) return UNAUTHORIZED;
    const standing = keyStanding(record, this.clock.nowMs());
    if (standing === 'revoked') return UNAUTHORIZED;
    if (standing === 'expired') return EXPIRED;
    let principal = this.principals.get(record);
    if (principal === undefined) {
      principal = ok(principalOf(record));
      this.principals.set(record, principal);
    }
    return principal;
  }
}
