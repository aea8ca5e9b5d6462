// Run in a child process whose D-Bus address leads nowhere, so the real keychain fails:
// tries to add an account, then to add it for this session only, and prints what happened.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountStore } from '../../src/main/accounts/account-store';
import { AccountService } from '../../src/main/accounts/accounts';
import { KeychainSecretStore, SessionSecretStore } from '../../src/main/accounts/secret-store';
import { AppError } from '../../src/main/base/errors';
import { connectService } from '../../src/main/service-client/connect';

const [baseUrl = '', apiKey = ''] = process.argv.slice(2);
const dataDir = mkdtempSync(join(tmpdir(), 'earmark-nokeychain-'));
const accounts = new AccountService(
  new AccountStore(join(dataDir, 'accounts.json')),
  new KeychainSecretStore(`Earmark-test-${process.pid}`),
  new SessionSecretStore(),
  async (url, key) => {
    const client = connectService(url, key);
    try {
      return await client.me();
    } finally {
      await client.close();
    }
  },
);
const outcome: Record<string, unknown> = { dataDir };
try {
  await accounts.add({ baseUrl, apiKey });
  outcome.keychain = 'stored';
} catch (error) {
  outcome.keychain =
    error instanceof AppError ? { kind: error.kind, message: error.message } : String(error);
}
const added = await accounts.add({ baseUrl, apiKey, sessionOnly: true });
outcome.session = {
  keyStorage: added.keyStorage,
  hasKey: added.hasKey,
  usable: accounts.active().apiKey === apiKey,
};
process.stdout.write(`${JSON.stringify(outcome)}\n`);
