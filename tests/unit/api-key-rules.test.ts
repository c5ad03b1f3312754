import { describe, expect, it } from 'vitest';
import {
  grants,
  isScope,
  KEY_NAME_MAX,
  keyName,
  keyScopes,
  keyStanding,
  limitSubjectOf,
  looksLikeApiKey,
  principalOf,
  SCOPES,
} from '../../src/domain/api-key.js';
import { isPlan, ownLimitsOf, PLAN_POLICIES, PLANS, policyForPlan, rateLimitPolicy } from '../../src/domain/plan.js';
import { aKeyRecord } from '../../src/testing/index.js';

describe("a key's scopes", () => {
  it('are the distinct ones given, in their fixed order', () => {
    expect(keyScopes(['inventory:write', 'inventory:read', 'inventory:write'])).toEqual([
      'inventory:read',
      'inventory:write',
    ]);
    expect(keyScopes(['inventory:write'])).toEqual(['inventory:write']);
  });

  it('are one at least', () => {
    expect(() => keyScopes([])).toThrow('a key needs at least one scope');
  });

  it.each(SCOPES)('may be %s, and nothing else', (scope) => {
    expect(isScope(scope)).toBe(true);
    expect(isScope(`${scope} `)).toBe(false);
    expect(isScope('inventory:admin')).toBe(false);
  });

  it('grant what they name alone', () => {
    expect(grants({ scopes: ['inventory:read'] }, 'inventory:read')).toBe(true);
    expect(grants({ scopes: ['inventory:read'] }, 'inventory:write')).toBe(false);
  });
});

describe("a key's name", () => {
  it(`has 1 to ${KEY_NAME_MAX} characters`, () => {
    expect(keyName('a')).toBe('a');
    expect(keyName('a'.repeat(KEY_NAME_MAX))).toHaveLength(KEY_NAME_MAX);
    expect(() => keyName('')).toThrow(`a key name must have 1 to ${KEY_NAME_MAX} characters, not 0`);
    expect(() => keyName('a'.repeat(KEY_NAME_MAX + 1))).toThrow(`not ${KEY_NAME_MAX + 1}`);
  });
});

describe('a text that looks like a key', () => {
  it('is psk_ and exactly 40 base62 characters', () => {
    expect(looksLikeApiKey(`psk_${'aZ09'.repeat(10)}`)).toBe(true);
    expect(looksLikeApiKey(`psk_${'a'.repeat(39)}`)).toBe(false);
    expect(looksLikeApiKey(`psk_${'a'.repeat(41)}`)).toBe(false);
    expect(looksLikeApiKey(`psk_${'a'.repeat(39)}-`)).toBe(false);
    expect(looksLikeApiKey(`xpsk_${'a'.repeat(40)}`)).toBe(false);
    expect(looksLikeApiKey(`pk_${'a'.repeat(40)}`)).toBe(false);
  });
});

describe("a key's standing", () => {
  it('is active until its expiry instant, expired from it on', () => {
    const key = aKeyRecord('key_1', { expiresAtMs: 1_000 });
    expect(keyStanding(key, 999)).toBe('active');
    expect(keyStanding(key, 1_000)).toBe('expired');
    expect(keyStanding(aKeyRecord('key_2'), Number.MAX_SAFE_INTEGER)).toBe('active');
  });

  it('is revoked once revoked, which wins over expiry', () => {
    expect(keyStanding(aKeyRecord('key_1', { revokedAtMs: 5, expiresAtMs: 1 }), 10)).toBe('revoked');
    expect(keyStanding(aKeyRecord('key_1', { revokedAtMs: 5 }), 0)).toBe('revoked');
  });
});

describe('who a key acts as', () => {
  it("is the key, counted under its roll chain's rate-limit subject", () => {
    const key = aKeyRecord('key_2', { familyId: 'key_1', name: 'shop', expiresAtMs: 9 });
    expect(limitSubjectOf(key)).toBe('key:key_1');
    expect(principalOf(key)).toEqual({
      keyId: 'key_2',
      plan: 'free',
      policy: PLAN_POLICIES.free,
      name: 'shop',
      scopes: key.scopes,
      limitSubject: 'key:key_1',
      expiresAtMs: 9,
    });
  });
});

describe('plans', () => {
  it('are free, pro, business and enterprise', () => {
    expect(PLANS.filter(isPlan)).toEqual(['free', 'pro', 'business', 'enterprise']);
    expect(isPlan('Free')).toBe(false);
    expect(isPlan(undefined)).toBe(false);
  });

  it('with fixed limits refuse a key’s own, and give theirs', () => {
    expect(policyForPlan('pro')).toBe(PLAN_POLICIES.pro);
    expect(() => policyForPlan('pro', rateLimitPolicy(1, 1))).toThrow(
      'the pro plan has fixed limits; only enterprise keys take their own',
    );
  });

  it('of enterprise need the key’s own limits, checked', () => {
    expect(policyForPlan('enterprise', { perMinute: 5, perDay: 50 })).toEqual({ perMinute: 5, perDay: 50 });
    expect(() => policyForPlan('enterprise')).toThrow('an enterprise plan needs its own per-minute and per-day limits');
    expect(() => policyForPlan('enterprise', { perMinute: 0, perDay: 50 })).toThrow(RangeError);
  });

  it('keep no limits of a fixed-plan key, and refuse any but the published ones', () => {
    expect(ownLimitsOf('business', PLAN_POLICIES.business)).toBeUndefined();
    expect(ownLimitsOf('enterprise', { perMinute: 5, perDay: 50 })).toEqual({ perMinute: 5, perDay: 50 });
    const message = "a key on the free plan must carry that plan's limits";
    expect(() => ownLimitsOf('free', { perMinute: 60, perDay: 999 })).toThrow(message);
    expect(() => ownLimitsOf('free', { perMinute: 61, perDay: 1_000 })).toThrow(message);
  });
});
