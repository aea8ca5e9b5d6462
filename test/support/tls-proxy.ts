// A TLS-inspecting proxy as clinics have them: it terminates TLS with a certificate signed by
// the clinic's own certificate authority (made here, for 127.0.0.1) and forwards the bytes to
// a service on loopback. A client trusts it only if it trusts that authority.
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';
import { generate } from 'selfsigned';

export interface TlsProxy {
  /** The clinic's certificate authority, PEM: what the system's store would hold. */
  authority: string;
  /** https://127.0.0.1:<port>: the service's origin seen through the proxy. */
  origin: string;
  close(): Promise<void>;
}

/** A certificate authority named `authorityName` and a server certificate for 127.0.0.1 it signed. */
async function certificates(authorityName: string) {
  const inAYear = new Date(Date.now() + 365 * 24 * 3600_000);
  const authority = await generate([{ name: 'commonName', value: authorityName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: inAYear,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notAfterDate: inAYear,
    ca: { key: authority.private, cert: authority.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    ],
  });
  return { authority: authority.cert, key: server.private, cert: server.cert };
}

/**
 * Starts the proxy in front of `target` (an http origin on loopback), its certificate signed by
 * a new authority named `authorityName` (names tell authorities apart: give each its own).
 */
export async function startTlsProxy(target: string, authorityName: string): Promise<TlsProxy> {
  const { authority, key, cert } = await certificates(authorityName);
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server = createServer({ key, cert }, (client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  // A client that refuses the certificate hangs up mid-handshake: nothing to report.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    authority,
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
