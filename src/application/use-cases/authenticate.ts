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

/** Who a bearer key stands for, or why it stands for nobody. */
export type Authentication = Result<Principal, DomainError<'unauthorized' | 'key_expired'>>;

/** A key's principal, as `execute` answers it. */
type Authenticated = { readonly ok: true; readonly value: Principal };

const UNAUTHORIZED = fail(domainError('unauthorized', 'the API key is missing, invalid or revoked'));
const EXPIRED = fail(domainError('key_expired', 'the API key has expired; use its successor or ask for a new one'));

/**
 * Whether a port answered with a promise rather than at once: anything with a `then` method, as `await`
 * takes it (a promise of another realm or library too); a digest or a key record has none.
 */
const isPending = <T>(answer: T | PromiseLike<T>): answer is PromiseLike<T> =>
  typeof (answer as { then?: unknown } | undefined)?.then === 'function';

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

  execute(input: AuthenticateInput): Promise<Authentication> {
    try {
      return Promise.resolve(this.answer(input.apiKey));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The answer of `execute`, given at once when the hasher and the store give theirs at once (the
   * server's hasher and a remembered key: nearly every request), otherwise as a promise. Every request
   * with a key comes here: an answer at once costs no promise and no turn of the event loop.
   */
  answer(apiKey: string): Authentication | Promise<Authentication> {
    // A token that cannot be a key is refused before hashing: no store lookup for junk.
    if (!looksLikeApiKey(apiKey)) return UNAUTHORIZED;
    const digest = this.hasher.hash(apiKey);
    return isPending(digest) ? Promise.resolve(digest).then(this.answerOfHash) : this.answerOfHash(digest);
  }

  // Made once, not a closure a request: the answer of a hash, and of the record the store found.
  private readonly answerOfHash = (hash: string): Authentication | Promise<Authentication> => {
    const record = this.keys.findByHash(hash);
    return isPending(record) ? Promise.resolve(record).then(this.answerOfRecord) : this.answerOfRecord(record);
  };

  private readonly answerOfRecord = (record: ApiKeyRecord | undefined): Authentication => {
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
  };
}
