import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { decideUnlock } from '../../../src/main/at-rest/unlock';

/** Which key opens an account's data (issue 30): the rule, from the keychain and the disk. */
describe('unlocking an account', () => {
  const bytes = randomBytes(32);
  const check = AccountKey.from(bytes).check();

  it('makes a key when nothing sealed lies on disk (a new account, a cache in the clear)', () => {
    expect(decideUnlock({ stored: undefined, sealedData: false, keyCheck: undefined })).toEqual({
      kind: 'create',
    });
    // A check left by data since deleted says nothing.
    expect(decideUnlock({ stored: undefined, sealedData: false, keyCheck: 'ab' }).kind).toBe(
      'create',
    );
  });

  it('uses the key it keeps, with its check or before one was written', () => {
    for (const keyCheck of [check, undefined]) {
      const decision = decideUnlock({ stored: bytes, sealedData: true, keyCheck });
      expect(decision.kind).toBe('use');
      expect(decision.kind === 'use' && decision.key.check()).toBe(check);
    }
    expect(decideUnlock({ stored: bytes, sealedData: false, keyCheck: 'stale' }).kind).toBe('use');
  });

  it('is locked when sealed data lies there and the keychain has no key for it', () => {
    expect(decideUnlock({ stored: undefined, sealedData: true, keyCheck: check })).toEqual({
      kind: 'locked',
      reason: 'key_missing',
    });
    expect(decideUnlock({ stored: undefined, sealedData: true, keyCheck: undefined })).toEqual({
      kind: 'locked',
      reason: 'key_missing',
    });
  });

  it('is locked when the keychain holds another key than the data was sealed with', () => {
    expect(decideUnlock({ stored: randomBytes(32), sealedData: true, keyCheck: check })).toEqual({
      kind: 'locked',
      reason: 'key_wrong',
    });
  });
});
