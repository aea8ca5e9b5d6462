import { describe, expect, it } from 'vitest';
import { startChild } from './crash-child';

describe('the digest thread', () => {
  it('started ahead of use, lets the process exit while it is idle', async () => {
    // An idle thread's port kept ref'd held the process open for ever (a benchmark hung after
    // printing its results); the test's timeout is what fails then.
    const child = startChild('audio/idle-digest-child.ts', {});
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.lines).toEqual([{ started: true }]);
  }, 30_000);
});
