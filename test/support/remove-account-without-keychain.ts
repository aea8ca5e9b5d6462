// Run in a child process whose D-Bus address leads nowhere, so the real keychain fails: removes
// an account from the data folder given, and prints what the removal answered.
import { join } from 'node:path';
import { AccountStore } from '../../src/main/accounts/account-store';
import { AccountService } from '../../src/main/accounts/accounts';
import { KeychainSecretStore, SessionSecretStore } from '../../src/main/accounts/secret-store';
import { AppError } from '../../src/main/base/errors';

const [dataDir = '', keychainService = '', accountId = ''] = process.argv.slice(2);
const accounts = new AccountService(
  new AccountStore(join(dataDir, 'accounts.json')),
  new KeychainSecretStore(keychainService),
  new SessionSecretStore(),
  () => Promise.reject(new Error('no service in this child')),
);
const outcome: Record<string, unknown> = {
  left: accounts.remove(accountId).map((account) => account.id),
};
try {
  accounts.assertKeyDeleted(accountId);
  outcome.removal = 'whole';
} catch (error) {
  outcome.removal =
    error instanceof AppError ? { kind: error.kind, message: error.message } : String(error);
}
process.stdout.write(`${JSON.stringify(outcome)}\n`);
