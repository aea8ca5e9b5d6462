import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Label } from '../../../src/shared/api';
import { NotesQueue } from '../../../src/main/sync/notes-queue';
import { label } from '../cache/helpers';

/** A queue over made-up labels: what it fetched, in order, and what it wrote, batch by batch. */
function queueOf(options: { concurrency?: number; batch?: number; gone?: Set<string> } = {}) {
  const asked: string[] = [];
  const batches: string[][] = [];
  const removed: string[] = [];
  const queue = new NotesQueue({
    concurrency: options.concurrency ?? 4,
    batch: options.batch ?? 50,
    fetch: async (id) => {
      asked.push(id);
      await nextTurn(); // an answer comes in a later turn
      return options.gone?.has(id) ? null : ({ ...label(0), id } satisfies Label);
    },
    store: async (labels) => void batches.push(labels.map((l) => l.id)),
    remove: async (ids) => {
      removed.push(...ids);
      return ids.length;
    },
    onError: (error) => {
      throw error;
    },
    onWritten: () => undefined,
  });
  return { queue, asked, batches, removed };
}

const ids = (count: number, prefix = 'l') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('the notes queue', () => {
  it('fetches every id once, in the order added, through thousands of them', async () => {
    const { queue, asked, batches } = queueOf();
    const first = ids(6000, 'a');
    const second = ids(3000, 'b');
    queue.add(first);
    queue.add([...second, ...first.slice(0, 10)]); // ids already queued are not asked twice
    await queue.drain();
    expect(asked).toEqual([...first, ...second]);
    expect(batches.flat().sort()).toEqual([...first, ...second].sort());
    expect(queue.fetched).toBe(9000);
    expect(queue.queued).toBe(0);
  });

  it('takes ids added while it works after those before them', async () => {
    const { queue, asked } = queueOf({ concurrency: 2 });
    queue.add(ids(3000, 'a'));
    await nextTurn();
    queue.add(ids(5, 'late'));
    await queue.drain();
    expect(asked.slice(-5)).toEqual(ids(5, 'late'));
    expect(asked).toHaveLength(3005);
  });

  it('removes what the service no longer has and writes what it fetched when stopped', async () => {
    const gone = new Set(['a1', 'a3']);
    const { queue, asked, batches, removed } = queueOf({ concurrency: 1, batch: 1000, gone });
    queue.add(ids(2000, 'a'));
    while (asked.length < 10) await nextTurn();
    queue.stop();
    await queue.drain();
    expect(removed).toEqual(['a1', 'a3']);
    expect(batches.flat()).toEqual(asked.filter((id) => !gone.has(id)));
    expect(asked.length).toBeLessThan(2000);
    expect(queue.queued).toBe(0);
  });
});
