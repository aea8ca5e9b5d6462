/**
 * The renderer's Content-Security-Policy, sent as a header by both shells: scripts only from the
 * app itself (no inline script, no eval), no foreign origins, no framing, no plugins.
 * Inline styles stay allowed: Svelte sets dynamic sizes (timeline bars) through style attributes,
 * and wavesurfer.js injects a <style> element into its shadow root that cannot carry a nonce.
 * Styles cannot run code, and every other source stays locked.
 */
export function contentSecurityPolicy(
  connectSources: readonly string[] = [],
  mediaSources: readonly string[] = [],
): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    `media-src 'self' blob: ${mediaSources.join(' ')}`.trim(),
    "font-src 'self'",
    `connect-src 'self' ${connectSources.join(' ')}`.trim(),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

/** Headers sent with every renderer document and asset, whichever shell serves it. */
export function rendererHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'x-frame-options': 'DENY',
  };
}
