import type { Label } from '../../shared/api';
import type {
  CleanupSummary,
  RemovedEverything,
  RetentionOverview,
  Sourced,
} from '../../shared/ipc';
import { cutoffOf, type RetentionDays, type RetentionSettings } from '../../shared/retention';
import type { AccountService } from '../accounts/accounts';
import type { AudioCache } from '../audio/audio-cache';
import { AppError } from '../base/errors';
import type { Cache } from '../cache';
import { walkAllAgain } from '../sync';
import { audioToRemove } from './cleanup';
import type { CleanupRunner } from './runner';

/** Whether `days` keeps longer than `than` (null: for ever). */
const keepsLonger = (days: RetentionDays, than: RetentionDays) =>
  days !== than && (days === null || (than !== null && days > than));

export interface RetentionDeps {
  accounts: Pick<AccountService, 'active' | 'retentionOf' | 'setRetention'>;
  /** The active account's cache, audio cache and cleanup (its scope's). */
  cache(): Promise<Cache>;
  audioCache(): Promise<AudioCache>;
  cleanup(): CleanupRunner;
  /** The records an account's running exports read. */
  recordsInUse(accountId: string): string[];
  /** Starts a sync of the active account unless one runs. */
  sync(): void;
  /** A record, from the service (kept in the cache) or the cache. */
  record(labelId: string): Promise<Sourced<Label>>;
  /** Remove everything of this clinic from this computer (AccountScopes.removeEverything). */
  removeEverything(accountId: string): Promise<RemovedEverything>;
  now?: () => number;
}

/**
 * How long the active clinic's data stays on this computer (issue 29): its settings (kept in
 * accounts.json beside the account, so they outlive the cache), what is kept and what the next
 * cleanup will remove, "Remove now", the records kept whatever their age, and "Remove
 * everything of this clinic from this computer".
 */
export class Retention {
  private readonly now: () => number;

  constructor(private readonly deps: RetentionDeps) {
    this.now = deps.now ?? Date.now;
  }

  private activeId(): string {
    return this.deps.accounts.active().account.id;
  }

  async overview(): Promise<RetentionOverview> {
    const accountId = this.activeId();
    const settings = this.deps.accounts.retentionOf(accountId);
    const [cache, audio] = await Promise.all([this.deps.cache(), this.deps.audioCache()]);
    const now = this.now();
    const spare = this.deps.recordsInUse(accountId);
    const textBefore = cutoffOf(settings.textDays, now);
    const [text, keptRecords, cleanup] = await Promise.all([
      cache.read.textPreview(textBefore === null ? null : { before: textBefore, spare }),
      cache.read.keptRecords(),
      this.deps.cleanup().current(),
    ]);
    const audioGoing = await audioToRemove({
      cache,
      audio,
      audioBefore: cutoffOf(settings.audioDays, now),
      kept: new Set(keptRecords.map((record) => record.labelId)),
      spare: new Set(spare),
    });
    const held = audio.held();
    const bytesOf = (files: readonly { bytes: number }[]) =>
      files.reduce((sum, file) => sum + file.bytes, 0);
    return {
      settings,
      kept: {
        records: text.kept.records,
        textBytes: text.kept.bytes,
        audioFiles: held.length,
        audioBytes: bytesOf(held),
      },
      next: {
        records: text.next.records,
        textBytes: text.next.bytes,
        audioFiles: audioGoing.length,
        audioBytes: bytesOf(audioGoing),
        spared: text.next.spared,
      },
      keptRecords,
      cleanup,
    };
  }

  /**
   * Saves the active clinic's settings; the sync follows them from its next run. A longer text
   * window makes that run walk everything again (at once), so what the shorter one left out
   * comes back.
   */
  async setSettings(settings: RetentionSettings): Promise<RetentionOverview> {
    const accountId = this.activeId();
    const before = this.deps.accounts.retentionOf(accountId);
    this.deps.accounts.setRetention(accountId, settings);
    if (keepsLonger(settings.textDays, before.textDays)) {
      await walkAllAgain((await this.deps.cache()).write, this.now());
      this.deps.sync();
    }
    return this.overview();
  }

  removeNow(): Promise<CleanupSummary> {
    this.activeId();
    return this.deps.cleanup().run();
  }

  removeEverything(): Promise<RemovedEverything> {
    return this.deps.removeEverything(this.activeId());
  }

  /** Marks a record "Keep on this computer" (storing it first if the cache does not hold it). */
  async keep(labelId: string, keep: boolean): Promise<boolean> {
    const cache = await this.deps.cache();
    if (!keep) {
      await cache.write.releaseRecord(labelId);
      return false;
    }
    if (await cache.write.keepRecord(labelId, this.now())) return true;
    const { value: label, source } = await this.deps.record(labelId);
    if (source === 'service') await cache.write.storeLabels([label], this.now());
    if (await cache.write.keepRecord(labelId, this.now())) return true;
    throw new AppError('not_found', 'This recording could not be kept on this computer.');
  }

  async isKept(labelId: string): Promise<boolean> {
    return (await this.deps.cache()).read.isKept(labelId);
  }
}
