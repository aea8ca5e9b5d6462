import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CreatedRange } from '../../shared/ipc';
import { writeFileAtomic } from '../fs/atomic-write';

type RangesFile = { version: 1; accounts: Record<string, CreatedRange[]> };

/**
 * The ranges of the conversations this app created, per account: the seed's conversation
 * carries no times, so this is how the timeline draws them and finds their records.
 */
export class CreatedRangeStore {
  private state: RangesFile;

  constructor(private readonly path: string) {
    this.state = existsSync(path)
      ? (JSON.parse(readFileSync(path, 'utf8')) as RangesFile)
      : { version: 1, accounts: {} };
  }

  add(accountId: string, range: CreatedRange): void {
    const next: RangesFile = structuredClone(this.state);
    next.accounts[accountId] = [...(next.accounts[accountId] ?? []), range];
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, JSON.stringify(next));
    this.state = next;
  }

  /** Ranges on `deviceId` intersecting [startMs, endMs), oldest first. */
  within(accountId: string, deviceId: string, startMs: number, endMs: number): CreatedRange[] {
    return (this.state.accounts[accountId] ?? [])
      .filter((r) => r.deviceId === deviceId && r.startMs < endMs && r.endMs > startMs)
      .sort((a, b) => a.startMs - b.startMs);
  }

  find(accountId: string, conversationId: string): CreatedRange | undefined {
    return (this.state.accounts[accountId] ?? []).find((r) => r.conversationId === conversationId);
  }
}
