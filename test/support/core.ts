import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import { createCore, type Core, type CoreOptions } from '../../src/main/core';

/**
 * A core as the browser shell makes it, for a test: the keys in memory (a SessionSecretStore)
 * and nothing logged, unless the test gives its own.
 */
export function testCore(options: Partial<CoreOptions> & Pick<CoreOptions, 'dataDir'>): Core {
  return createCore({
    shell: 'browser',
    version: 'test',
    keychain: new SessionSecretStore(),
    log: () => undefined,
    ...options,
  });
}
