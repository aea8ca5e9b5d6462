// The certificate authorities the Electron shell's HTTPS trusts: Node's bundled list and the
// system's store. A clinic behind a TLS-inspecting proxy has its own authority installed in the
// system's store, which Node ignores (undici uses Node's bundled list), and the Electron shell
// cannot be pointed at a file of extra authorities: its nodeOptions fuse is off, and with it
// NODE_EXTRA_CA_CERTS (docs/packaging.md). See docs/architecture.md, "TLS".
import tls, { type SecureContext } from 'node:tls';

/** Reads a list of trusted certificate authorities, PEM-encoded. */
export type AuthorityReader = () => readonly string[];

export type CertificateTrust =
  | {
      ok: true;
      /** For every connection to a service (undici's connect option `secureContext`). */
      secureContext: SecureContext;
      /** How many authorities the system's store added. */
      fromSystem: number;
    }
  | { ok: false; reason: string };

/** tls.getCACertificates: Node 22.15 and 23.10 onwards (Electron 45 has it); absent before. */
type CaQuery = (type: 'default' | 'system') => string[];
const caQuery = (tls as { getCACertificates?: CaQuery }).getCACertificates;

/** Node's reader of the system's store (Keychain, Windows' store, OpenSSL's folders), if any. */
const nodeSystemStore: AuthorityReader | undefined = caQuery ? () => caQuery('system') : undefined;

/** What Node trusts by default: its bundled list (and NODE_EXTRA_CA_CERTS where that is read). */
const nodeDefaults: AuthorityReader = () => caQuery?.('default') ?? tls.rootCertificates;

/**
 * One TLS context trusting Node's default authorities and the system's, built once: a `ca`
 * option would parse the whole list again for every connection. Where the store cannot be read
 * (no reader on this runtime, or it fails) the answer says why, in words for the log, and the
 * caller keeps Node's default.
 */
export function systemCertificateTrust(
  readSystemStore: AuthorityReader | undefined = nodeSystemStore,
  readDefaults: AuthorityReader = nodeDefaults,
): CertificateTrust {
  if (!readSystemStore)
    return {
      ok: false,
      reason: `This runtime (Node ${process.versions.node}) cannot read the system's certificate store (tls.getCACertificates needs Node 22.15 or newer): HTTPS trusts Node's bundled certificate authorities only, so a network that inspects TLS will be refused.`,
    };
  try {
    const system = readSystemStore();
    const ca = [...new Set([...readDefaults(), ...system])];
    return { ok: true, secureContext: tls.createSecureContext({ ca }), fromSystem: system.length };
  } catch (error) {
    return {
      ok: false,
      reason: `The system's certificate store could not be used (${error instanceof Error ? error.message : String(error)}): HTTPS trusts Node's bundled certificate authorities only.`,
    };
  }
}
