import type { TestContext } from 'vitest';

/** Skips the running test when this machine cannot set up what it needs, and prints why. */
export function skipBecause(context: TestContext, reason: string): never {
  console.warn(`Skipping: ${reason}`);
  return context.skip(reason);
}
