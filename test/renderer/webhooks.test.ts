import { beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, Webhook } from '../../src/shared/api';
import { WebhooksStore } from '../../src/renderer/src/lib/webhooks.svelte';
import { FakeEarmark, settle } from './support';

const webhook = (id: string, extra: Partial<Webhook> = {}): Webhook => ({
  id,
  url: `https://receiver.example/${id}`,
  description: '',
  eventTypes: [],
  isActive: true,
  consecutiveFailures: 0,
  createdAt: '2026-11-20T08:00:00.000Z',
  ...extra,
});
const delivery = (id: string, success: boolean): Delivery => ({
  id,
  eventId: `e-${id}`,
  eventType: 'ping',
  attemptNumber: 1,
  httpStatusCode: success ? 204 : 503,
  responseTimeMs: 12,
  errorMessage: success ? null : 'Service Unavailable',
  success,
  createdAt: '2026-11-24T08:00:00.000Z',
});

describe('the Webhooks store', () => {
  let fake: FakeEarmark;
  let store: WebhooksStore;
  let listed: Webhook[];
  beforeEach(async () => {
    fake = new FakeEarmark();
    listed = [webhook('w-1'), webhook('w-2', { isActive: false, consecutiveFailures: 20 })];
    fake.handle('admin.webhooks', () => listed);
    fake.handle('admin.deliveries', ({ webhookId }) => [delivery(`${webhookId}-d1`, true)]);
    store = new WebhooksStore(fake);
    await store.load();
  });

  it('lists the webhooks, and says why when it cannot', async () => {
    expect([store.loaded, store.webhooks.map((w) => w.id)]).toEqual([true, ['w-1', 'w-2']]);
    fake.fail('admin.webhooks', { kind: 'scope_missing', message: 'This key cannot do that.' });
    await store.load();
    expect(store.error?.kind).toBe('scope_missing');
    expect(store.webhooks).toHaveLength(2); // what was shown stays
  });

  it('selects one and reads its log; a log read late for one left is dropped', async () => {
    const answers = new Map<string, (value: Delivery[]) => void>();
    fake.handle(
      'admin.deliveries',
      ({ webhookId }) => new Promise((r) => answers.set(webhookId, r)),
    );
    store.select(store.webhooks[0]!);
    store.select(store.webhooks[1]!);
    await settle();
    answers.get('w-2')!([delivery('w-2-d1', false)]);
    await settle();
    answers.get('w-1')!([delivery('w-1-d1', true)]);
    await settle();
    expect(store.selected?.id).toBe('w-2');
    expect(store.deliveries?.map((d) => d.id)).toEqual(['w-2-d1']);
    store.deselect();
    expect(store.selected).toBeNull();
  });

  it('sends a test and reads the log and the list again; says when it was not delivered', async () => {
    store.select(store.webhooks[0]!);
    await settle();
    fake.handle('admin.testWebhook', () => ({ success: false, eventId: 'e-1' }));
    listed = [webhook('w-1', { consecutiveFailures: 1 }), listed[1]!];
    await store.sendTest(store.webhooks[0]!);
    expect(store.testOutcome).toMatch(/^The test ping was not delivered/);
    expect(store.webhooks[0]!.consecutiveFailures).toBe(1);
    expect(fake.callsOf('admin.deliveries')).toHaveLength(2);
    expect(store.busy).toBeNull();
  });

  it('re-enables a disabled one, and deletes one after the user confirms', async () => {
    fake.handle('admin.enableWebhook', ({ webhookId }) =>
      listed.map((w) =>
        w.id === webhookId ? { ...w, isActive: true, consecutiveFailures: 0 } : w,
      ),
    );
    await store.enable(store.webhooks[1]!);
    expect(store.webhooks[1]!.isActive).toBe(true);

    store.select(store.webhooks[0]!);
    store.askDelete();
    expect(store.confirmingDelete).toBe(true);
    fake.fail('admin.deleteWebhook', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    expect(await store.remove(store.webhooks[0]!)).toBe(false);
    expect([store.confirmingDelete, store.actionError?.kind]).toEqual([true, 'offline']);
    fake.handle('admin.deleteWebhook', ({ webhookId }) => listed.filter((w) => w.id !== webhookId));
    expect(await store.remove(store.webhooks[0]!)).toBe(true);
    expect([store.confirmingDelete, store.selectedId]).toEqual([false, null]);
    expect(store.webhooks.map((w) => w.id)).toEqual(['w-2']);
  });

  it('creates one, selects it with an empty log, and hands back its secret without keeping it', async () => {
    fake.handle('admin.createWebhook', (input) => ({
      ...webhook('w-3', { url: input.url }),
      secret: 'whsec_123',
    }));
    const outcome = await store.create({ url: 'https://new.example/hook', description: '' });
    expect(outcome).toEqual({ secret: 'whsec_123', url: 'https://new.example/hook' });
    expect([store.selectedId, store.deliveries]).toEqual(['w-3', []]);
    expect(JSON.stringify(store.webhooks)).not.toContain('whsec_123');
  });
});
