import type { Entitlements } from '../api';

/** What a key can reach, by the app's areas, in plain words. */
export interface KeyCapability {
  area: 'Recordings' | 'Hub timeline and conversations' | 'Follow-ups' | 'Webhooks';
  can: boolean;
  /** Why not, in the user's words (what to ask for). */
  why?: string;
}

/** The one scope the seed names: it grants everything the key's user may do. */
const EVERYTHING = 'logged-in';

/**
 * What a key can do in Earmark, from its identity (scopes and the organization's entitlements),
 * so that a key that cannot reach an area says so when it is added, not when a screen fails.
 * The scope names beyond `logged-in` are the reference service's (docs/reference-service.md):
 * the seed does not show them, so a key allowing only names unknown here is said to lack them.
 */
export function keyCapabilities({
  allowedFeatures,
  entitlements,
}: {
  allowedFeatures: readonly string[];
  entitlements: Entitlements | null;
}): KeyCapability[] {
  // A session (no key) or a key with no list of scopes is limited only by the user's role.
  const all = allowedFeatures.length === 0 || allowedFeatures.includes(EVERYTHING);
  const scoped = (scope: string) => all || allowedFeatures.includes(scope);
  const allows = allowedFeatures.join(', ');
  const missingScope = (what: string) =>
    `the key allows only ${allows}: ask for a key with ${what} access, or one that allows everything`;
  const hubScope = scoped('hub');
  const hubEntitled = entitlements?.hub === true;
  return [
    {
      area: 'Recordings',
      can: scoped('labels'),
      ...(scoped('labels') ? {} : { why: missingScope('recordings (labels)') }),
    },
    {
      area: 'Hub timeline and conversations',
      can: hubScope && hubEntitled,
      ...(!hubEntitled
        ? { why: 'the clinic’s subscription does not include the hub' }
        : hubScope
          ? {}
          : { why: missingScope('hub') }),
    },
    {
      area: 'Follow-ups',
      can: scoped('tasks'),
      ...(scoped('tasks') ? {} : { why: missingScope('follow-ups (tasks)') }),
    },
    {
      area: 'Webhooks',
      can: scoped('webhooks'),
      ...(scoped('webhooks') ? {} : { why: missingScope('webhooks') }),
    },
  ];
}

/** One sentence for a notice: what the key cannot reach, or that it reaches everything. */
export function capabilitySentence(capabilities: readonly KeyCapability[]): string {
  const missing = capabilities.filter((capability) => !capability.can);
  if (missing.length === 0) return 'This key can use everything Earmark offers.';
  return `This key cannot use ${missing.map((m) => `${m.area} (${m.why})`).join('; ')}.`;
}
