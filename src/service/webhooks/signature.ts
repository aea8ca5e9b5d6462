import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Seed §6.2: X-Service-Signature is "sha256=" and the lowercase hex HMAC-SHA256 of the exact raw
 * body bytes, keyed with the webhook's secret (the same scheme as GitHub's X-Hub-Signature-256).
 */
export function signBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Checks a signature header against the raw body in constant time (rule 1 of §6.2). */
export function verifySignature(
  secret: string,
  body: string | Uint8Array,
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const actual = Buffer.from(header);
  // Only the length can leak here, and every valid signature has the same length.
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
