import { invalidInput } from '../base/errors';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Normalizes a service base URL the user typed: http(s) only, no credentials, query or
 * fragment, no trailing slash. Plain http is accepted only on this machine: a key sent in clear
 * over a network could be read by anyone on the way.
 */
export function normalizeBaseUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw invalidInput(
      `"${input}" is not a web address. Enter the service's address, e.g. https://clinic.example.com/api.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidInput(`The service address must start with https:// (not ${url.protocol}).`);
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw invalidInput(
      'Use https:// for a clinic service; plain http:// is allowed only for a service on this computer.',
    );
  }
  if (url.username || url.password)
    throw invalidInput('The service address must not contain a user name or password.');
  if (url.search || url.hash)
    throw invalidInput('The service address must not contain "?" or "#" parts.');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
