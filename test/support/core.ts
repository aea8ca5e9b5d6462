import { afterAll, beforeAll } from 'vitest';
import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import { createCore, type Core, type CoreOptions } from '../../src/main/core';
import { seedLabel, tempFolder } from '../main/audio/fixtures';
import { startService, type RunningService } from '../service/harness';
import { startFaultProxy, type FaultProxy } from './fault-proxy';

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

/** What useClinicBehindProxy sets up; its fields are there once the file's tests run. */
export interface ClinicBehindProxy {
  svc: RunningService;
  /** In front of the service: a test adds an account through it to delay or break answers. */
  proxy: FaultProxy;
  core: Core;
  /** The core's keychain (its accounts' keys, in memory). */
  keychain: SessionSecretStore;
  dataDir: string;
  /** One-minute records with audio, of patients "Patient 0", "Patient 1"… */
  labelIds: string[];
}

/**
 * A reference service with `records` recordings, a fault proxy in front of it and a core, set up
 * before the file's (or describe block's) tests and closed after them.
 */
export function useClinicBehindProxy(records: number, folderPrefix: string): ClinicBehindProxy {
  const clinic = {} as ClinicBehindProxy;
  beforeAll(async () => {
    clinic.svc = await startService();
    clinic.proxy = await startFaultProxy(clinic.svc.baseUrl);
    const { organizationId } = clinic.svc.credentials.primary;
    clinic.labelIds = Array.from({ length: records }, (_, i) =>
      seedLabel(clinic.svc.service, organizationId, { minutes: 1, patient: `Patient ${i}` }),
    );
    clinic.dataDir = tempFolder(folderPrefix);
    clinic.keychain = new SessionSecretStore();
    clinic.core = testCore({ dataDir: clinic.dataDir, keychain: clinic.keychain });
  });
  afterAll(async () => {
    await clinic.core?.close();
    await clinic.proxy?.close();
    await clinic.svc?.dispose();
  });
  return clinic;
}
