import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { lookup as lookupCallback } from 'node:dns';

/**
 * Where webhooks may be delivered. A webhook is a request the service makes on a client's
 * behalf, so by default it may reach only public addresses: never this machine (loopback), the
 * local network (private, link-local — cloud metadata at 169.254.169.254 among them — CGNAT,
 * unique-local) or special ranges. Names are resolved and every address checked, at creation
 * and again at each delivery (the connection goes only to an address that passed: no DNS
 * rebinding); redirects are never followed. `'any'` is the sandbox's: `npm run demo-service`,
 * the app's demo clinic and the tests deliver to listeners on this machine.
 */
export type WebhookDestinations = 'public' | 'any';

const NOT_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6, an IPv4-mapped v6 as its v4) is a public one. */
export function isPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const family = isIP(address);
  if (family === 0) return false;
  return !NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class DestinationRefused extends Error {}

/**
 * Checks a webhook URL against the policy: its scheme, and every address its host resolves to.
 * Resolves the host once; throws DestinationRefused with the rule that refused it.
 */
export async function checkDestination(url: string, policy: WebhookDestinations): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DestinationRefused('The URL is not a valid address.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new DestinationRefused('Webhook URLs must be http or https.');
  }
  if (policy === 'any') return;
  // WHATWG URL parsing already wrote hex, octal and short IPv4 forms as dotted quads.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : await lookup(host, { all: true, verbatim: true })
        .then((found) => found.map((entry) => entry.address))
        .catch(() => {
          throw new DestinationRefused(`The host ${host} cannot be resolved.`);
        });
  const refused = addresses.find((address) => !isPublicAddress(address));
  if (refused !== undefined) {
    throw new DestinationRefused(
      `Webhooks are delivered only to public addresses; ${host} is ${refused}, which is not one (loopback, private, link-local or reserved).`,
    );
  }
}

/**
 * A DNS lookup for the delivery's connection that answers only public addresses, so the
 * connection goes to an address the policy allows even if the name changed since the check.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookupCallback(hostname, { ...options, all: true }, (error, found) => {
    if (error) return callback(error, '', 4);
    const allowed = (found as { address: string; family: number }[]).filter((entry) =>
      isPublicAddress(entry.address),
    );
    if (allowed.length === 0) {
      const refused = new Error(
        `${hostname} resolves to no public address: webhooks are delivered only to public addresses.`,
      );
      return callback(refused as NodeJS.ErrnoException, '', 4);
    }
    if (options.all) return callback(null, allowed as never, 4);
    callback(null, allowed[0]!.address, allowed[0]!.family);
  });
};
