import { isKeyRefusal, type AccountSummary } from '../../shared/ipc';
import type { DemoClinic } from './demo-clinic';
import { AppError } from '../base/errors';
import type { AccountService } from './accounts';

/**
 * Starts the embedded demo clinic and adds (and activates) its account. The demo's key is a
 * local sandbox key: without a keychain, memory will do. A demo key that was revoked (from the
 * app's own API keys screen) or has expired is replaced by a new one: the demo always opens.
 */
export async function openDemoAccount(
  accounts: AccountService,
  demo: DemoClinic,
): Promise<AccountSummary> {
  const { baseUrl, apiKey } = await demo.start();
  // The clinic's key, else the one the demo account kept (its credentials were kept nowhere).
  const key = apiKey ?? accounts.demoKey();
  if (key !== undefined) {
    try {
      return await addDemo(accounts, baseUrl, key);
    } catch (error) {
      if (!isKeyRefusal(error)) throw error;
    }
  }
  const renewed = await demo.renewKey();
  return addDemo(accounts, renewed.baseUrl, renewed.apiKey);
}

async function addDemo(
  accounts: AccountService,
  baseUrl: string,
  apiKey: string,
): Promise<AccountSummary> {
  try {
    return await accounts.add({ baseUrl, apiKey, demo: true });
  } catch (error) {
    if (!(error instanceof AppError && error.kind === 'keychain_unavailable')) throw error;
    return accounts.add({ baseUrl, apiKey, demo: true, sessionOnly: true });
  }
}
