import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';

/**
 * The browser shell's embedded demo clinic, reached directly by a test (never by the app): its
 * address from the shell's accounts.json and its keys from the demo folder's credentials.json.
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
  const credentials = JSON.parse(
    readFileSync(join(dataDir, 'demo-service', 'credentials.json'), 'utf8'),
  ) as DemoCredentials;
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
