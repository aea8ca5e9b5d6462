// A Review mark timed as the screen asks it: `review.mark` over the browser shell's WebSocket,
// from the call to the queue's new count, on the queue's newest item, marked reviewed and then
// unmarked (each one a sample). Its baseline: the queue read whole (`review.list` with the
// reviewed ones too, which main reads anew each time), as every mark did before 2026-11-28.
// Shared by bench/review.bench.ts and bench/scale.bench.ts.
import { performance } from 'node:perf_hooks';
import { invokeOverShell } from '../../test/e2e/support';

export interface MarkTimes {
  /** Each mark and unmark, ms. */
  marks: number[];
  /** Each whole reading of the queue, ms. */
  wholeReadings: number[];
}

export async function timeMarks(shellUrl: string, rounds: number): Promise<MarkTimes> {
  const first = await invokeOverShell<{ items: { kind: string; id: string }[] }>(
    shellUrl,
    'review.list',
    { limit: 1 },
  );
  const item = first.items[0];
  if (!item) throw new Error('The review queue is empty: nothing to mark.');
  const marks: number[] = [];
  const wholeReadings: number[] = [];
  const timed = async (channel: string, input: unknown, into: number[]) => {
    const started = performance.now();
    await invokeOverShell(shellUrl, channel, input);
    into.push(performance.now() - started);
  };
  for (let round = 0; round < rounds; round++) {
    for (const reviewed of [true, false])
      await timed(
        'review.mark',
        {
          records: item.kind === 'record' ? [item.id] : [],
          conversations: item.kind === 'conversation' ? [item.id] : [],
          reviewed,
        },
        marks,
      );
    await timed('review.list', { filter: { showReviewed: true }, limit: 1 }, wholeReadings);
  }
  return { marks, wholeReadings };
}
