import { describe, expect, it } from 'vitest';
import { DEFAULT_REVIEW_SETTINGS } from '../../src/shared/ipc/constants';
import { ReviewSettingsStore } from '../../src/renderer/src/lib/review-settings.svelte';
import { FakeEarmark } from './support';

const view = (signOff: boolean) => ({
  settings: { ...DEFAULT_REVIEW_SETTINGS, signOff },
  signOffWrites: 'Signing a recording off adds a task…',
});

describe('ReviewSettingsStore', () => {
  it('shows the settings, saves a change, and keeps a refused one as it was, saying why', async () => {
    const fake = new FakeEarmark();
    fake.handle('review.settings', () => view(false));
    const store = new ReviewSettingsStore(fake);
    await store.load();
    expect(store.view?.settings.signOff).toBe(false);

    fake.handle('review.saveSettings', (change) => ({
      ...view(false),
      settings: { ...view(false).settings, ...change },
    }));
    await store.save({ markOnOpen: 'by-hand' });
    expect(fake.callsOf('review.saveSettings')).toEqual([{ markOnOpen: 'by-hand' }]);
    expect(store.view?.settings.markOnOpen).toBe('by-hand');

    fake.fail('review.saveSettings', {
      kind: 'scope_missing',
      message: 'Only an owner or admin of the clinic can turn on sign-off.',
    });
    await store.save({ signOff: true });
    expect(store.error?.message).toContain('Only an owner or admin');
    expect(store.view?.settings).toMatchObject({ markOnOpen: 'by-hand', signOff: false });
    expect(store.saving).toBe(false);
  });
});
