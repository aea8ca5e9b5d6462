import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_PREFIX, createService, type ClinicService, type ServiceOptions } from './app';
import { readMeta, writeMeta } from './db/database';
import { seedDemo } from './demo/demo-seed';
import type { DemoCredentials } from './demo/identity-seed';
import { buildScaleSeed, startScaleSeed } from './demo/scale-seed';
import { HubSimulator } from './hub/live-simulator';

export type SeedSpec =
  | { kind: 'demo' }
  /** `withheldDays`: the history's last days left for appendWithheldDay (not in the seed's name). */
  | { kind: 'scale'; count: number; withheldDays?: number };

export interface SandboxOptions extends ServiceOptions {
  seed?: SeedSpec;
  port?: number;
  host?: string;
}

/** A running reference service: the demo clinic of `npm start`, the CLI, and the app's demo. */
export interface Sandbox {
  service: ClinicService;
  baseUrl: string;
  /** Empty when the folder was never seeded. */
  credentials: DemoCredentials | Record<string, never>;
  /**
   * A new key for the demo's primary organization (its own was revoked or has expired: the demo
   * can be broken from inside the app), kept as the credentials' primary key from now on.
   */
  renewPrimaryKey(): string;
  close(): Promise<void>;
}

const CREDENTIALS_FILE = 'credentials.json';
const SEED_KEY = 'seed';

const isDemoCredentials = (credentials: Sandbox['credentials']): credentials is DemoCredentials =>
  'primary' in credentials;

/** Writes the credentials beside the database, owner-only, whole or not at all. */
function saveCredentials(path: string, credentials: DemoCredentials): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(credentials), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

export const seedName = (seed: SeedSpec) => (seed.kind === 'demo' ? 'demo' : `scale:${seed.count}`);

export class SeedMismatchError extends Error {}

/**
 * Opens the service over `dataDir`, seeding it first if it is empty and a seed is asked for,
 * starts the hub simulator and listens. The credentials of a seeded folder are kept beside the
 * database (owner-only) so every later start can hand them out again.
 */
export async function openSandbox(options: SandboxOptions): Promise<Sandbox> {
  const service = createService(options);
  try {
    const credentialsPath = join(options.dataDir, CREDENTIALS_FILE);
    const seeded = readMeta(service.db, SEED_KEY);
    let credentials: Sandbox['credentials'] = {};
    if (options.seed && seeded === undefined) {
      const now = service.now();
      credentials =
        options.seed.kind === 'demo'
          ? seedDemo(service, now)
          : startScaleSeed(service, options.seed.count, now, options.seed);
      saveCredentials(credentialsPath, credentials);
      writeMeta(service.db, SEED_KEY, seedName(options.seed));
    } else {
      if (options.seed && seeded !== seedName(options.seed)) {
        throw new SeedMismatchError(
          `${options.dataDir} already holds the "${seeded}" seed; use another data folder for "${seedName(options.seed)}".`,
        );
      }
      if (existsSync(credentialsPath))
        credentials = JSON.parse(readFileSync(credentialsPath, 'utf8')) as DemoCredentials;
    }
    // The scale seed's days, or those a stopped start left unbuilt (none: nothing to do).
    buildScaleSeed(service);
    const simulator = new HubSimulator(service.db, service.hub, service.clips, service.now);
    simulator.start();
    const address = await service.app.listen({
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
    });
    const sandbox: Sandbox = {
      service,
      baseUrl: `${address}${API_PREFIX}`,
      credentials,
      renewPrimaryKey() {
        const current = sandbox.credentials;
        if (!isDemoCredentials(current))
          throw new Error(`${options.dataDir} holds no demo credentials to renew.`);
        const admin = service.identity.userByEmail(current.admin.email);
        if (!admin) throw new Error(`The demo's admin ${current.admin.email} is gone.`);
        const { key } = service.identity.createApiKey({
          userId: admin.id,
          organizationId: current.primary.organizationId,
          name: 'Earmark desktop',
        });
        const renewed: DemoCredentials = {
          ...current,
          primary: { ...current.primary, apiKey: key },
        };
        saveCredentials(credentialsPath, renewed);
        sandbox.credentials = renewed;
        return key;
      },
      async close() {
        simulator.stop();
        await service.close();
      },
    };
    return sandbox;
  } catch (error) {
    await service.close();
    throw error;
  }
}
