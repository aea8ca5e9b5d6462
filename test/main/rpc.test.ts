import { describe, expect, it } from 'vitest';
import { CHANNEL_NAMES } from '../../src/shared/ipc';
import { AppError } from '../../src/main/base/errors';
import { createRpcRouter, type RpcHandlers } from '../../src/main/rpc';

const calls: unknown[] = [];
const logs: string[] = [];
const handlers = Object.fromEntries(
  CHANNEL_NAMES.map((name) => [
    name,
    (input: unknown) => {
      calls.push([name, input]);
      if (name === 'accounts.remove')
        throw new AppError('not_found', 'That account no longer exists.');
      if (name === 'accounts.activate')
        throw new Error('database is locked at /home/vet/.config/Earmark');
      return { echoed: input };
    },
  ]),
) as unknown as RpcHandlers;
const router = createRpcRouter(
  handlers,
  () => undefined,
  (message) => logs.push(message),
);

describe('the RPC router', () => {
  it('dispatches a valid call to its handler', async () => {
    expect(
      await router.invoke('accounts.add', { baseUrl: 'https://x.example', apiKey: 'csk_12345678' }),
    ).toEqual({
      ok: true,
      value: { echoed: { baseUrl: 'https://x.example', apiKey: 'csk_12345678' } },
    });
  });

  it.each([
    ['constructor', {}],
    ['__proto__', {}],
    ['accounts.drop', {}],
    [42, {}],
  ])('rejects the unknown channel %j without calling anything', async (channel, input) => {
    const before = calls.length;
    const result = await router.invoke(channel, input);
    expect(result).toMatchObject({ ok: false, error: { kind: 'unknown_channel' } });
    expect(calls).toHaveLength(before);
  });

  it.each([
    ['accounts.add', { baseUrl: 'https://x.example' }, 'apiKey'],
    [
      'accounts.add',
      { baseUrl: 'https://x.example', apiKey: 'csk_12345678', extra: true },
      'extra',
    ],
    ['accounts.add', { baseUrl: 5, apiKey: 'csk_12345678' }, 'baseUrl'],
    ['accounts.remove', { accountId: '../../etc' }, 'accountId'],
    ['accounts.list', null, 'the input'],
    ['accounts.list', { surprise: 1 }, 'surprise'],
    ['app.openExternal', { url: 'x'.repeat(3000) }, 'url'],
    // Ids that go into the service's paths: a dot segment would reach another path.
    ['conversations.get', { deviceId: '..', conversationId: 'c1' }, 'deviceId'],
    ['conversations.get', { deviceId: 'hub-1', conversationId: '..' }, 'conversationId'],
    ['conversations.follow', { deviceId: 'hub-1', conversationId: '.' }, 'conversationId'],
    ['conversations.get', { deviceId: 'hub-1', conversationId: 'a/b' }, 'conversationId'],
    ['hub.minutes', { deviceId: '.', startMs: 0, endMs: 1 }, 'deviceId'],
  ])(
    'rejects invalid input to %s, naming the field, without calling the handler',
    async (channel, input, field) => {
      const before = calls.length;
      const result = await router.invoke(channel, input);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.kind).toBe('invalid_input');
        expect(result.error.message).toContain(field);
      }
      expect(calls).toHaveLength(before);
    },
  );

  it("passes main's own errors through with their kind", async () => {
    expect(await router.invoke('accounts.remove', { accountId: 'abc' })).toEqual({
      ok: false,
      error: { kind: 'not_found', message: 'That account no longer exists.' },
    });
  });

  it('hides unexpected errors from the renderer and logs them', async () => {
    const result = await router.invoke('accounts.activate', { accountId: 'abc' });
    expect(result).toMatchObject({ ok: false, error: { kind: 'internal' } });
    expect(JSON.stringify(result)).not.toContain('/home/vet');
    expect(logs.at(-1)).toContain('database is locked');
  });
});

describe('the contract compiles and checks every kind of field', () => {
  it.each([
    ['labels.get', { labelId: '0b6c58a4-4a5e-4e4b-9d3c-2a1f0e9d8c7b' }, true],
    ['labels.get', { labelId: 'not-a-uuid' }, false],
    ['conversations.list', { status: 'UPLOADED', pageSize: 20 }, true],
    ['conversations.list', { status: 'DONE' }, false],
    ['hub.minutes', { deviceId: 'hub-consult-1', startMs: 0, endMs: 60_000 }, true],
    ['hub.minutes', { deviceId: '../etc', startMs: 0, endMs: 60_000 }, false],
    ['hub.minutes', { deviceId: 'hub-consult-1', startMs: -1, endMs: 60_000 }, false],
  ])('%s %j → valid: %s', async (channel, input, valid) => {
    const result = await router.invoke(channel, input);
    expect(result.ok || result.error.kind !== 'invalid_input').toBe(valid);
  });
});

describe('hostile channel values', () => {
  it.each([
    [{ toString: {} }],
    [
      {
        toString: () => {
          throw new Error('boom');
        },
      },
    ],
    [Symbol('x')],
    [null],
  ])('refuses hostile channel value #%# without calling into it', async (channel) => {
    expect(await router.invoke(channel, {})).toMatchObject({
      ok: false,
      error: { kind: 'unknown_channel' },
    });
  });
});
