import type { TestContext } from 'vitest';

/** Skips the running test when this machine cannot set up what it needs, and prints why. */
export function skipBecause(context: TestContext, reason: string): never {
  console.warn(`Skipping: ${reason}`);
  return context.skip(reason);
}

/**
 * A suite's reason to skip on this machine, printed when there is one, so a skipped suite always
 * says why: `describe.skipIf(problem !== undefined)` after `const problem = announceSkip(…)`.
 */
export function announceSkip(tests: string, problem: string | undefined): string | undefined {
  if (problem) console.warn(`Skipping ${tests}: ${problem}`);
  return problem;
}
