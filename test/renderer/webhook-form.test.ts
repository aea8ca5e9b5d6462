import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CreateWebhookRequest } from '../../src/shared/api';
import { WebhookFormStore } from '../../src/renderer/src/lib/webhook-form.svelte';
import { WebhooksStore } from '../../src/renderer/src/lib/webhooks.svelte';
import { FakeEarmark } from './support';

describe('the new-webhook form', () => {
  let fake: FakeEarmark;
  let webhooks: WebhooksStore;
  let form: WebhookFormStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('admin.createWebhook', (input: CreateWebhookRequest) => ({
      id: 'w-1',
      url: input.url,
      description: input.description,
      eventTypes: input.eventTypes ?? [],
      isActive: true,
      consecutiveFailures: 0,
      createdAt: '2026-11-24T08:00:00.000Z',
      secret: 'whsec_123',
    }));
    webhooks = new WebhooksStore(fake);
    form = new WebhookFormStore(webhooks);
  });
  afterEach(() => vi.useRealTimers());

  it('is complete with an http(s) address, and with events chosen when only some are wanted', () => {
    form.url = 'ftp://files.example';
    expect(form.complete).toBe(false);
    form.url = ' https://pms.example/hook ';
    expect(form.complete).toBe(true);
    form.scope = 'some';
    expect(form.complete).toBe(false);
    form.chosen = ['ping'];
    expect(form.complete).toBe(true);
  });

  it('warns of an unencrypted address beyond this computer only', () => {
    form.url = 'http://192.0.2.1/hook';
    expect(form.insecure).toBe(true);
    form.url = 'http://127.0.0.1:8080/hook';
    expect(form.insecure).toBe(false);
    form.url = 'https://pms.example/hook';
    expect(form.insecure).toBe(false);
  });

  it('creates it trimmed, with the events chosen in the service’s order, and shows its secret', async () => {
    form.url = ' https://pms.example/hook ';
    form.description = ' Practice management ';
    form.scope = 'some';
    form.chosen = ['task_created', 'new_label'];
    expect(await form.submit()).toBe(true);
    expect(fake.callsOf('admin.createWebhook')).toEqual([
      {
        url: 'https://pms.example/hook',
        description: 'Practice management',
        eventTypes: ['new_label', 'task_created'],
      },
    ]);
    expect(form.created).toEqual({ url: 'https://pms.example/hook', secret: 'whsec_123' });
    expect(webhooks.selectedId).toBe('w-1');
    form.dispose();
    expect(form.created).toBeNull();
  });

  it('sends every event when all are wanted, and says why the service refused', async () => {
    form.url = 'https://pms.example/hook';
    form.chosen = ['ping']; // left from "only these": not sent with "all"
    fake.fail('admin.createWebhook', {
      kind: 'invalid_input',
      message: 'The address is not public.',
    });
    expect(await form.submit()).toBe(false);
    expect(fake.callsOf('admin.createWebhook')).toEqual([
      { url: 'https://pms.example/hook', description: '' },
    ]);
    expect([form.error?.message, form.created]).toEqual(['The address is not public.', null]);
  });

  it('copies the secret, or says it could not and that the secret is selected', async () => {
    vi.useFakeTimers();
    form.url = 'https://pms.example/hook';
    await form.submit();
    const written: string[] = [];
    expect(await form.copySecret(async (text) => void written.push(text))).toBe(true);
    expect(written).toEqual(['whsec_123']);
    expect(form.copied.message).toEqual({ ok: true, text: 'Copied to the clipboard.' });
    expect(await form.copySecret(() => Promise.reject(new Error('Permission denied.')))).toBe(
      false,
    );
    expect(form.copied.message?.text).toBe(
      'Could not reach the clipboard (Permission denied.): the secret is selected, copy it with Ctrl+C.',
    );
  });
});
