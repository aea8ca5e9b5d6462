import { invalidInput } from './errors';

/** Accepts only absolute http(s) URLs for the system browser; returns the parsed, normalized form. */
export function parseExternalUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidInput('That link is not a web address.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalidInput(`Only http and https links open outside Earmark (not ${url.protocol}).`);
  }
  return url.href;
}
