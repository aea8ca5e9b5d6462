import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A key for this process only: it makes the digests below, never anything kept. */
const DIGEST_KEY = randomBytes(32);

const digestOf = (text: string) => createHmac('sha256', DIGEST_KEY).update(text).digest();

/**
 * Whether an offered secret is the expected one, in time that does not tell where they differ.
 * Both are first made HMACs of one length, so any text compares — another length, or the same
 * length in characters but not in bytes ("é" is one UTF-16 unit, two UTF-8 bytes) — where
 * timingSafeEqual on the texts themselves would throw.
 */
export const sameSecret = (offered: string, expected: string): boolean =>
  timingSafeEqual(digestOf(offered), digestOf(expected));
