import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_PREFIX,
  DEFAULT_PROCESSING_MS,
  createService,
  type ClinicService,
  type ServiceOptions,
} from './app';
import { readMeta, writeMeta } from './db/database';
import { seedDemo } from './demo/demo-seed';
import type { DemoCredentials } from './demo/identity-seed';
import { buildScaleSeed, startScaleSeed } from './demo/scale-seed';
import { HubSimulator } from './hub/live-simulator';

export type SeedSpec =
  | { kind: 'demo' }
  /** `withheldDays`: the history's last days left for appendWithheldDay (not in the seed's name). */
  | { kind: 'scale'; count: number; withheldDays?: number };

/** Where a seeded folder's credentials are kept between starts. */
export interface CredentialsKeeper {
  read(): DemoCredentials | undefined;
  write(credentials: DemoCredentials): void;
}

export interface SandboxOptions extends ServiceOptions {
  seed?: SeedSpec;
  port?: number;
  host?: string;
  /** Where the credentials are kept: `DIR/credentials.json` unless given (the app's keychain). */
  credentials?: CredentialsKeeper;
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

export const CREDENTIALS_FILE = 'credentials.json';
const SEED_KEY = 'seed';
/** The seeded owner who gets a new key when the demo's own is gone: e-mail and organization. */
const OWNER_KEY = 'demo-owner';

const isDemoCredentials = (credentials: Sandbox['credentials']): credentials is DemoCredentials =>
  'primary' in credentials;

/**
 * The credentials in `DIR/credentials.json` (owner-only, written whole or not at all): those of
 * `npm run service`, which prints them at every start — a developer's sandbox of made-up data
 * on loopback (docs/reference-service.md). The app's embedded demo keeps them in the keychain.
 */
export function credentialsFile(dataDir: string): CredentialsKeeper {
  const path = join(dataDir, CREDENTIALS_FILE);
  return {
    read: () =>
      existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials) : undefined,
    write(credentials) {
      writeFileSync(`${path}.tmp`, JSON.stringify(credentials), { mode: 0o600 });
      renameSync(`${path}.tmp`, path);
    },
  };
}

const seedName = (seed: SeedSpec) => (seed.kind === 'demo' ? 'demo' : `scale:${seed.count}`);

export class SeedMismatchError extends Error {}

/**
 * Opens the service over `dataDir`, seeding it first if it is empty and a seed is asked for,
 * starts the hub simulator and listens. The credentials of a seeded folder are kept (beside the
 * database, owner-only, unless `credentials` says where) so every later start can hand them out
 * again.
 */
export async function openSandbox(options: SandboxOptions): Promise<Sandbox> {
  const service = createService(options);
  try {
    const keeper = options.credentials ?? credentialsFile(options.dataDir);
    const seeded = readMeta(service.db, SEED_KEY);
    let credentials: Sandbox['credentials'] = {};
    if (options.seed && seeded === undefined) {
      const now = service.now();
      const made =
        options.seed.kind === 'demo'
          ? seedDemo(service, now)
          : startScaleSeed(service, options.seed.count, now, options.seed);
      credentials = made;
      keeper.write(made);
      writeMeta(service.db, SEED_KEY, seedName(options.seed));
    } else {
      if (options.seed && seeded !== seedName(options.seed)) {
        throw new SeedMismatchError(
          `${options.dataDir} already holds the "${seeded}" seed; use another data folder for "${seedName(options.seed)}".`,
        );
      }
      credentials = keeper.read() ?? {};
    }
    // The scale seed's days, or those a stopped start left unbuilt (none: nothing to do).
    buildScaleSeed(service);
    // Who gets a new key if the demo's own is lost with its credentials (no secret: an e-mail).
    if (isDemoCredentials(credentials) && readMeta(service.db, OWNER_KEY) === undefined) {
      const { email, organizationId } = credentials.admin;
      writeMeta(service.db, OWNER_KEY, JSON.stringify({ email, organizationId }));
    }
    const simulator = new HubSimulator({
      db: service.db,
      hub: service.hub,
      clips: service.clips,
      events: service.events,
      conversations: service.conversations,
      now: service.now,
      processingMs: options.processingMs ?? DEFAULT_PROCESSING_MS,
    });
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
        // The seeded owner: from the credentials, or (none kept) from the database.
        const stored = readMeta(service.db, OWNER_KEY);
        const owner = isDemoCredentials(current)
          ? current.admin
          : stored
            ? (JSON.parse(stored) as { email: string; organizationId: string })
            : undefined;
        if (!owner) throw new Error(`${options.dataDir} holds no demo owner to renew a key for.`);
        const admin = service.identity.userByEmail(owner.email);
        if (!admin) throw new Error(`The demo's admin ${owner.email} is gone.`);
        const { key } = service.identity.createApiKey({
          userId: admin.id,
          organizationId: owner.organizationId,
          name: 'Earmark desktop',
        });
        if (isDemoCredentials(current)) {
          const renewed: DemoCredentials = {
            ...current,
            primary: { ...current.primary, apiKey: key },
          };
          keeper.write(renewed);
          sandbox.credentials = renewed;
        }
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
