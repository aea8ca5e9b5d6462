import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';
import { demoCredentialsEntry } from '../../src/main/accounts/demo-credentials';
import { KeychainSecretStore } from '../../src/main/accounts/secret-store';

/**
 * The browser shell's embedded demo clinic, reached directly by a test (never by the app): its
 * address from the shell's accounts.json and its keys from where the app keeps them, the
 * keychain (the tests' private Secret Service).
 */
export interface DemoService {
  baseUrl: string;
  credentials: DemoCredentials;
  /** GET with the primary organization's key (or another), parsed as JSON. */
  get<T>(path: string, apiKey?: string): Promise<{ status: number; body: T }>;
}

export function demoService(dataDir: string): DemoService {
  const accounts = JSON.parse(readFileSync(join(dataDir, 'accounts.json'), 'utf8')) as {
    accounts: { baseUrl: string; demo?: boolean }[];
  };
  const baseUrl = (accounts.accounts.find((a) => a.demo) ?? accounts.accounts[0])!.baseUrl;
  const kept = new KeychainSecretStore().get(demoCredentialsEntry(join(dataDir, 'demo-service')));
  if (kept === undefined)
    throw new Error(`The keychain holds no credentials of ${dataDir}'s demo.`);
  const credentials = JSON.parse(kept) as DemoCredentials;
  return {
    baseUrl,
    credentials,
    async get<T>(path: string, apiKey = credentials.primary.apiKey) {
      const response = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const text = await response.text();
      return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
    },
  };
}
