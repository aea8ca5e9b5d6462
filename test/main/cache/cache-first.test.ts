import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/main/api/errors';
import { cacheFirst, firstAnswer, type CacheFirstAnswer } from '../../../src/main/cache';

async function answers<T>(
  steps: Parameters<typeof cacheFirst<T>>[0],
): Promise<CacheFirstAnswer<T>[]> {
  const all: CacheFirstAnswer<T>[] = [];
  for await (const answer of cacheFirst(steps)) all.push(answer);
  return all;
}

describe('cache-first reads', () => {
  it('answer from the cache at once, then from the service, which is cached', async () => {
    const written: string[] = [];
    let release!: () => void;
    const serviceAnswered = new Promise<void>((resolve) => (release = resolve));
    const steps = {
      read: async () => 'cached',
      fetch: async () => {
        await serviceAnswered;
        return 'fresh';
      },
      write: async (value: string) => void written.push(value),
    };
    const iterator = cacheFirst(steps);
    expect((await iterator.next()).value).toEqual({
      value: 'cached',
      source: 'cache',
      final: false,
    });
    release();
    expect((await iterator.next()).value).toEqual({
      value: 'fresh',
      source: 'service',
      final: true,
    });
    expect(written).toEqual(['fresh']);
  });

  it('ask the service only when the cache has nothing', async () => {
    expect(
      await answers({ read: async () => null, fetch: async () => 1, write: async () => {} }),
    ).toEqual([{ value: 1, source: 'service', final: true }]);
    // A failing cache read counts as a miss.
    expect(
      await answers({
        read: () => Promise.reject(new Error('closed')),
        fetch: async () => 2,
        write: async () => {},
      }),
    ).toEqual([{ value: 2, source: 'service', final: true }]);
  });

  it('offline: end with the cached answer marked with the error; without one, throw it', async () => {
    const offline = new ApiError('offline');
    const result = await answers({
      read: async () => 'cached',
      fetch: () => Promise.reject(offline),
      write: async () => {},
    });
    expect(result).toEqual([
      { value: 'cached', source: 'cache', final: false },
      { value: 'cached', source: 'cache', final: true, error: offline },
    ]);
    await expect(
      answers({
        read: async () => undefined,
        fetch: () => Promise.reject(offline),
        write: async () => {},
      }),
    ).rejects.toBe(offline);
  });

  it('still answer when the service’s answer cannot be cached', async () => {
    const [answer] = await answers({
      read: async () => null,
      fetch: async () => 'fresh',
      write: () => Promise.reject(new Error('disk full')),
    });
    expect(answer).toMatchObject({
      value: 'fresh',
      source: 'service',
      cacheError: new Error('disk full'),
    });
  });

  it('give a handler its first answer and the update through a callback', async () => {
    const updates: CacheFirstAnswer<string>[] = [];
    const first = await firstAnswer(
      { read: async () => 'cached', fetch: async () => 'fresh', write: async () => {} },
      (update) => updates.push(update),
    );
    expect(first).toMatchObject({ value: 'cached', final: false });
    await expect.poll(() => updates).toEqual([{ value: 'fresh', source: 'service', final: true }]);
    const only = await firstAnswer(
      { read: async () => null, fetch: async () => 'fresh', write: async () => {} },
      (update) => updates.push(update),
    );
    expect(only).toMatchObject({ value: 'fresh', final: true });
  });
});
