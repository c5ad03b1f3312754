import { describe, expect, it } from 'vitest';
import { NodeKeyCrypto } from '../../src/adapters/system/node-key-crypto.js';

describe('NodeKeyCrypto.hash', () => {
  const crypto = new NodeKeyCrypto();

  it('is the lowercase hex SHA-256 of the key, so the hashes stored by earlier releases still match', () => {
    // FIPS 180-2's test vectors: a different digest or encoding would lock every existing key out.
    expect(crypto.hash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(crypto.hash('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes the key as UTF-8 text', () => {
    expect(crypto.hash('é')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
  });
});
