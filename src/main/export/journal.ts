import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UnfinishedExport } from '../../shared/ipc';
import { AppError } from '../base/errors';
import type { ExportOptions, ManifestRow } from './export';
import { fileErrorOf } from '../audio/errors';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';

/** What an export is, written once when it starts. */
export interface JournalHeader {
  version: 1;
  /** The id of the export that started it; a resumed run keeps writing here. */
  journalId: string;
  /** The account whose recordings these are: only that account resumes it. */
  accountId: string;
  folder: string;
  /** Every recording to export, in order (a filter is resolved once, when the export starts). */
  labelIds: string[];
  transcripts: boolean;
  onExists: NonNullable<ExportOptions['onExists']>;
  startedAt: string;
}

/** An export on disk: its header and the rows that finished. */
export interface JournalRecord {
  header: JournalHeader;
  /** Finished rows (exported, no audio, skipped), each label once, the latest kept. */
  rows: ManifestRow[];
}

/** Rows worth keeping: a failed or cancelled recording is exported again on resume. */
const FINISHED: ReadonlySet<ManifestRow['status']> = new Set(['exported', 'no_audio', 'skipped']);

const ID = /^[0-9a-f-]{36}$/i;

/**
 * What each export has done, kept in the app's data folder so that an export stopped by the app
 * closing, a crash or a full disk can be resumed — after a restart too — without exporting the
 * finished recordings again: `<id>.json`, what to export and how (written once, atomically), and
 * `<id>.rows.jsonl`, one finished row a line, appended as each recording finishes (a line torn
 * by a crash is ignored: that recording is exported again). An export that answers (finished or
 * cancelled by the user) removes its journal.
 */
export class ExportJournal {
  constructor(private readonly folder: string) {}

  private headerPath = (journalId: string) => join(this.folder, `${journalId}.json`);
  private rowsPath = (journalId: string) => join(this.folder, `${journalId}.rows.jsonl`);

  /** Starts the journal of a new export. */
  async begin(header: Omit<JournalHeader, 'version'>): Promise<JournalWriter> {
    await mkdir(this.folder, { recursive: true });
    await writeFile(this.rowsPath(header.journalId), '', { flag: 'w' });
    const path = this.headerPath(header.journalId);
    await writeFileAtomic(path, JSON.stringify({ version: 1, ...header })).catch(
      (error: unknown) => {
        throw fileErrorOf(error, path);
      },
    );
    return new JournalWriter(this.rowsPath(header.journalId));
  }

  /** Appends to an existing journal (a resumed export). */
  writer(journalId: string): JournalWriter {
    return new JournalWriter(this.rowsPath(journalId));
  }

  /** An export's header and finished rows; not_found when there is no such journal. */
  async load(journalId: string): Promise<JournalRecord> {
    const header = ID.test(journalId) ? await this.readHeader(journalId) : null;
    if (!header) {
      throw new AppError('not_found', 'There is no unfinished export with this id.');
    }
    const wanted = new Set(header.labelIds);
    const rows = new Map<string, ManifestRow>();
    const text = await readFile(this.rowsPath(journalId), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const row = parseRow(line);
      if (row && wanted.has(row.labelId)) rows.set(row.labelId, row);
    }
    return { header, rows: [...rows.values()] };
  }

  /** The account's exports that did not finish, oldest first. */
  async unfinished(accountId: string): Promise<UnfinishedExport[]> {
    const names = await readdir(this.folder).catch(() => [] as string[]);
    const found: UnfinishedExport[] = [];
    for (const name of names) {
      const journalId = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (!ID.test(journalId)) continue;
      const record = await this.load(journalId).catch(() => null);
      if (!record || record.header.accountId !== accountId) continue;
      found.push({
        journalId,
        folder: record.header.folder,
        total: record.header.labelIds.length,
        done: record.rows.length,
        startedAt: record.header.startedAt,
      });
    }
    return found.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  /** Forgets an export (it finished, or the user gave it up). */
  async remove(journalId: string): Promise<void> {
    await removeQuietly(this.headerPath(journalId));
    await removeQuietly(this.rowsPath(journalId));
  }

  private async readHeader(journalId: string): Promise<JournalHeader | null> {
    try {
      const header = JSON.parse(
        await readFile(this.headerPath(journalId), 'utf8'),
      ) as JournalHeader;
      const ok =
        header.version === 1 &&
        header.journalId === journalId &&
        Array.isArray(header.labelIds) &&
        typeof header.folder === 'string';
      return ok ? header : null;
    } catch {
      return null;
    }
  }
}

/** Appends finished rows, one write at a time, in order. */
export class JournalWriter {
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly path: string) {}

  /** Records a row if it is finished; a journal that cannot be written only costs a redo. */
  append(row: ManifestRow): Promise<void> {
    if (!FINISHED.has(row.status)) return this.writes;
    this.writes = this.writes
      .then(() => appendFile(this.path, `${JSON.stringify(row)}\n`))
      .catch(() => undefined);
    return this.writes;
  }

  /** Waits for the rows handed in so far. */
  flushed(): Promise<void> {
    return this.writes;
  }
}

function parseRow(line: string): ManifestRow | null {
  if (!line.trim()) return null;
  try {
    const row = JSON.parse(line) as ManifestRow;
    return typeof row.labelId === 'string' && FINISHED.has(row.status) ? row : null;
  } catch {
    return null;
  }
}
