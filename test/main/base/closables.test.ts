import { describe, expect, it } from 'vitest';
import { Closables } from '../../../src/main/base/closables';

describe('Closables', () => {
  it('closes in the reverse order things were added, one at a time', async () => {
    const closables = new Closables();
    const events: string[] = [];
    for (const name of ['demo', 'client', 'account', 'exports']) {
      closables.add(name, async () => {
        events.push(`${name} starts`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`${name} done`);
      });
    }
    await closables.close();
    expect(events).toEqual([
      'exports starts',
      'exports done',
      'account starts',
      'account done',
      'client starts',
      'client done',
      'demo starts',
      'demo done',
    ]);
  });

  it('closes the rest when one fails, then says which failed', async () => {
    const closables = new Closables();
    const closed: string[] = [];
    closables.add('the cache', () => {
      closed.push('cache');
    });
    closables.add('the sync', () => {
      throw new Error('stuck');
    });
    closables.add('the follows', () => {
      closed.push('follows');
    });
    await expect(closables.close()).rejects.toThrow('the sync did not close: stuck');
    expect(closed).toEqual(['follows', 'cache']);
  });

  it('closes once: a second close waits for the first, and nothing is added after', async () => {
    const closables = new Closables();
    let closes = 0;
    closables.add('the client', async () => {
      closes++;
      await new Promise((resolve) => setImmediate(resolve));
    });
    const first = closables.close();
    const second = closables.close();
    expect(second).toBe(first);
    await second;
    expect(closes).toBe(1);
    expect(() => closables.add('late', () => undefined)).toThrow(/after its owner closed/);
  });
});
