import { describe, expect, it } from 'vitest';
import type { Entitlements } from '../../../src/shared/api';
import { capabilitySentence, keyCapabilities } from '../../../src/shared/accounts/key-capabilities';

const full: Entitlements = {
  vet: true,
  call: true,
  hub: true,
  vetForceSubscriptionEndDate: null,
  callForceSubscriptionEndDate: null,
};
const can = (allowedFeatures: string[], entitlements: Entitlements | null = full) =>
  Object.fromEntries(
    keyCapabilities({ allowedFeatures, entitlements }).map((c) => [c.area, c.can]),
  );

describe('keyCapabilities', () => {
  it('gives a logged-in key (and a session) every area the subscription includes', () => {
    expect(Object.values(can(['logged-in']))).toEqual([true, true, true, true]);
    expect(Object.values(can([]))).toEqual([true, true, true, true]);
    expect(can(['logged-in'], { ...full, hub: false })['Hub timeline and conversations']).toBe(
      false,
    );
  });

  it('gives a scoped key only its scopes, and says what to ask for', () => {
    expect(can(['labels', 'hub'])).toEqual({
      Recordings: true,
      'Hub timeline and conversations': true,
      'Follow-ups': false,
      Webhooks: false,
    });
    const followUps = keyCapabilities({ allowedFeatures: ['labels'], entitlements: full }).find(
      (c) => c.area === 'Follow-ups',
    );
    expect(followUps?.why).toBe(
      'the key allows only labels: ask for a key with follow-ups (tasks) access, or one that allows everything',
    );
  });

  it('blames the subscription, not the key, for the hub when the clinic lacks it', () => {
    const hub = keyCapabilities({
      allowedFeatures: ['labels'],
      entitlements: { ...full, hub: false },
    }).find((c) => c.area === 'Hub timeline and conversations');
    expect(hub).toEqual({
      area: 'Hub timeline and conversations',
      can: false,
      why: 'the clinic’s subscription does not include the hub',
    });
    expect(can(['labels'], null)['Hub timeline and conversations']).toBe(false);
  });

  it('says it in one sentence for the notice after connecting', () => {
    expect(capabilitySentence(keyCapabilities({ allowedFeatures: [], entitlements: full }))).toBe(
      'This key can use everything Earmark offers.',
    );
    expect(
      capabilitySentence(
        keyCapabilities({ allowedFeatures: ['labels', 'hub', 'tasks'], entitlements: full }),
      ),
    ).toBe(
      'This key cannot use Webhooks (the key allows only labels, hub, tasks: ask for a key with webhooks access, or one that allows everything).',
    );
  });
});
