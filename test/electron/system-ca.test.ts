// The Electron shell trusts the system's certificate store: the reference service behind a
// TLS-inspecting proxy whose certificate authority only "the system's store" holds (the store's
// reader is injected; Node here cannot read the real one), reached by the real API client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemCertificateTrust, type CertificateTrust } from '../../src/main/electron/system-ca';
import { connectService } from '../../src/main/service-client/connect';
import { startService, type RunningService } from '../service/harness';
import { startTlsProxy, type TlsProxy } from '../support/tls-proxy';

let service: RunningService;
/** The clinic's proxy: its authority is in the system's store only. */
let clinic: TlsProxy;
/** A server whose authority stands for one of the public ones Node bundles. */
let publicServer: TlsProxy;
beforeAll(async () => {
  service = await startService();
  [clinic, publicServer] = await Promise.all([
    startTlsProxy(service.baseUrl, 'Clinic inspection CA'),
    startTlsProxy(service.baseUrl, 'Public Root CA'),
  ]);
});
afterAll(async () => {
  await clinic?.close();
  await publicServer?.close();
  await service?.dispose();
});

/** Who the primary key is, asked through `proxy` with the given trust. */
async function whoAmI(proxy: TlsProxy, trust: CertificateTrust) {
  const baseUrl = `${proxy.origin}${new URL(service.baseUrl).pathname}`;
  const client = connectService(baseUrl, service.credentials.primary.apiKey, {
    maxRetries: 0,
    ...(trust.ok && { secureContext: trust.secureContext }),
  });
  try {
    return await client.me();
  } finally {
    await client.close();
  }
}

const me = () => ({ organizationId: service.credentials.primary.organizationId });

describe("the system's certificate store", () => {
  it("is what lets the app through a clinic's TLS-inspecting proxy", async () => {
    // Node's default trust refuses the proxy's certificate…
    const nodeDefault: CertificateTrust = { ok: false, reason: "Node's default" };
    const refused = await whoAmI(clinic, nodeDefault).catch((error: unknown) => error);
    expect(refused).toMatchObject({ kind: 'offline' });
    expect(String((refused as { detail?: string }).detail)).toMatch(/certificate/i);

    // …and so does a system store without the clinic's authority…
    await expect(
      whoAmI(
        clinic,
        systemCertificateTrust(() => []),
      ),
    ).rejects.toMatchObject({
      kind: 'offline',
    });

    // …while the same store holding it lets the call through, to the real service.
    const trust = systemCertificateTrust(() => [clinic.authority]);
    expect(trust).toMatchObject({ ok: true, fromSystem: 1 });
    await expect(whoAmI(clinic, trust)).resolves.toMatchObject(me());
  });

  it('adds to the authorities Node trusts by default, and replaces none of them', async () => {
    const defaults = () => [publicServer.authority];
    const withSystem = systemCertificateTrust(() => [clinic.authority], defaults);
    await expect(whoAmI(publicServer, withSystem)).resolves.toMatchObject(me());
    await expect(whoAmI(clinic, withSystem)).resolves.toMatchObject(me());

    const defaultsOnly = systemCertificateTrust(() => [], defaults);
    await expect(whoAmI(publicServer, defaultsOnly)).resolves.toMatchObject(me());
    await expect(whoAmI(clinic, defaultsOnly)).rejects.toMatchObject({ kind: 'offline' });
  });

  it('says why, in words, when the store cannot be read, and the default trust stays', () => {
    expect(systemCertificateTrust(undefined)).toEqual({
      ok: false,
      reason: expect.stringContaining("cannot read the system's certificate store"),
    });
    const failing = systemCertificateTrust(() => {
      throw new Error('Keychain locked');
    });
    expect(failing).toEqual({
      ok: false,
      reason: expect.stringContaining(
        "The system's certificate store could not be used (Keychain locked)",
      ),
    });
  });
});
