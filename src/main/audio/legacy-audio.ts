import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { AudioIndexEntry } from './audio-index-entry';
import type { AccountKey } from '../at-rest/account-key';
import { sealBytes, sealFile } from '../at-rest/sealed-file';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';
import { exists } from './files';
import { contentTypeForExtension } from './names';

/**
 * The audio an earlier version of Earmark kept in the clear — `files/<labelId>.<ext>`, its
 * `.peaks` beside, partial downloads with their states, and `index.json` listing them — sealed
 * into the audio cache's store one file at a time, in the background, when the cache is first
 * opened with the account's key (a recording asked for meanwhile is sealed first). Crash-safe by
 * naming: each file is sealed under a temporary name and renamed to its sealed name, and only
 * then is the clear one removed; a recording found both ways (a kill between the two) keeps the
 * sealed one. Partial downloads are not sealed but deleted: their states name the record, and
 * what they held is fetched again when played.
 */

/** The layout in the clear: an earlier version's, and the benchmarks' baseline's. */
export const CLEAR_FILES = 'files';
export const CLEAR_INDEX = 'index.json';
/** The names an earlier version gave a record's file: its id, when the id was plain. */
const PLAIN_ID = /^[A-Za-z0-9-]{1,64}$/;

export interface LegacyAudioDeps {
  /** The record's name in the sealed store. */
  nameOf(labelId: string): string;
  /** The sealed store's folder. */
  filesDir: string;
  key: AccountKey;
  /** A recording now sealed into the store: its index entry. */
  adopt(entry: AudioIndexEntry): Promise<void>;
}

interface LegacyFile {
  file: string;
  lastUsedAt: number;
}

export class LegacyAudio {
  private readonly legacyDir: string;
  /** Recordings still in the clear, by record id. */
  private readonly pending = new Map<string, LegacyFile>();
  private readonly sealing = new Map<string, Promise<void>>();
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly folder: string,
    private readonly deps: LegacyAudioDeps,
  ) {
    this.legacyDir = join(folder, CLEAR_FILES);
  }

  /** Finds what an earlier version left, and starts sealing it in the background. */
  async start(): Promise<void> {
    const names = await readdir(this.legacyDir).catch(() => null);
    if (!names) {
      await removeQuietly(join(this.folder, CLEAR_INDEX));
      return;
    }
    const used = await this.lastUses();
    for (const name of names) {
      const labelId = name.slice(0, name.length - extname(name).length);
      const whole = !name.startsWith('.') && !name.endsWith('.peaks') && !name.endsWith('.tmp');
      if (whole && PLAIN_ID.test(labelId)) {
        const info = await stat(join(this.legacyDir, name)).catch(() => null);
        if (info?.isFile())
          this.pending.set(labelId, { file: name, lastUsedAt: used.get(name) ?? info.mtimeMs });
      } else if (!name.endsWith('.peaks')) {
        // A partial download, its state, a temporary file, or a file whose name no longer says
        // its record: nothing to seal.
        await rm(join(this.legacyDir, name), { recursive: true, force: true });
      }
    }
    this.running = this.sealAll().catch(() => undefined);
  }

  /** Seals the recording `labelId` now if it is still in the clear (a player wants it). */
  convert(labelId: string): Promise<void> {
    const under = this.sealing.get(labelId);
    if (under) return under;
    const legacy = this.pending.get(labelId);
    if (!legacy) return Promise.resolve();
    this.pending.delete(labelId);
    const sealing = this.seal(labelId, legacy).finally(() => this.sealing.delete(labelId));
    this.sealing.set(labelId, sealing);
    return sealing;
  }

  /** Stops after the recording being sealed; the rest is sealed at the next open. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.allSettled(this.sealing.values());
  }

  /** When the earlier version last used each file (its index), by file name. */
  private async lastUses(): Promise<Map<string, number>> {
    const used = new Map<string, number>();
    try {
      const index = JSON.parse(await readFile(join(this.folder, CLEAR_INDEX), 'utf8')) as {
        entries?: { file?: unknown; lastUsedAt?: unknown }[];
      };
      for (const { file, lastUsedAt } of index.entries ?? []) {
        if (typeof file === 'string' && typeof lastUsedAt === 'number') used.set(file, lastUsedAt);
      }
    } catch {
      // Missing or unreadable: each file's modification time stands in.
    }
    return used;
  }

  private async sealAll(): Promise<void> {
    for (const labelId of [...this.pending.keys()]) {
      if (this.stopped) return;
      await this.convert(labelId).catch(() => undefined);
    }
    if (this.stopped || this.pending.size > 0) return;
    // All sealed: what is left of the earlier layout (peaks of no recording) goes with it.
    await rm(this.legacyDir, { recursive: true, force: true });
    await removeQuietly(join(this.folder, CLEAR_INDEX));
  }

  /** One recording: its peaks, then its audio, sealed into the store; then the clear ones go. */
  private async seal(labelId: string, legacy: LegacyFile): Promise<void> {
    const { filesDir, key } = this.deps;
    const name = this.deps.nameOf(labelId);
    const source = join(this.legacyDir, legacy.file);
    const sourcePeaks = `${source}.peaks`;
    const target = join(filesDir, name);
    const peaks = `${target}.peaks`;
    const hasPeaks = await exists(sourcePeaks);
    // Sealed already when a kill came before the clear files were removed.
    if (!(await exists(target))) {
      if (hasPeaks) await writeFileAtomic(peaks, sealBytes(key, await readFile(sourcePeaks)));
      await sealFile(source, target, key);
    }
    const [audioInfo, plainInfo] = await Promise.all([stat(target), stat(source)]);
    const peaksBytes = hasPeaks ? (await stat(peaks)).size : 0;
    await this.deps.adopt({
      name,
      labelId,
      file: name,
      peaksFile: hasPeaks ? `${name}.peaks` : null,
      contentType: contentTypeForExtension(extname(legacy.file)),
      bytes: plainInfo.size,
      diskBytes: audioInfo.size + peaksBytes,
      lastUsedAt: legacy.lastUsedAt,
    });
    await removeQuietly(source);
    await removeQuietly(sourcePeaks);
  }
}
