import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { lookup as lookupCallback } from 'node:dns';
import ipaddr from 'ipaddr.js';

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

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated by RFC 4291): no public host has one. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * Public means what ipaddr.js calls plain unicast: outside every range it knows as special —
 * loopback, private, link-local, CGNAT, unique-local, site-local (fec0::/10), multicast,
 * documentation, benchmarking, reserved, NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48),
 * Teredo (2001::/32, whose embedded client address is obfuscated) and the rest. IPv6 forms that
 * carry an IPv4 address are judged by it: IPv4-mapped (::ffff:a.b.c.d) and 6to4 (2002:AABB:CCDD::,
 * RFC 3056); IPv4-compatible ones (::/96) never pass.
 */
function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return isPublic(v6.toIPv4Address());
  if (range === '6to4') {
    const [high = 0, low = 0] = v6.parts.slice(1, 3);
    return isPublic(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  }
  if (v6.match(IPV4_COMPATIBLE)) return false;
  return range === 'unicast';
}

/** Whether an IP address (v4, or v6 in any form that carries a v4) is a public one. */
export function isPublicAddress(address: string): boolean {
  // Only the forms DNS answers and the URL parser writes: not "0x7f.1", which ipaddr.js also reads.
  if (isIP(address) === 0) return false;
  return isPublic(ipaddr.parse(address));
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
  // The answer names only what the caller sent: never the address a name resolved to, which
  // would map this service's network for whoever asks.
  if (!addresses.every(isPublicAddress)) {
    throw new DestinationRefused(
      `Webhooks are delivered only to public addresses, and ${host} is not public (loopback, private, link-local or reserved).`,
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
