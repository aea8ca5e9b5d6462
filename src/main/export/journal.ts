import { appendFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UnfinishedExport } from '../../shared/ipc';
import { AppError } from '../base/errors';
import type { ExportOptions, ManifestRow } from './export';
import { fileErrorOf } from '../audio/errors';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';
import type { AccountKey } from '../at-rest/account-key';

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

/** What a journal's row is sealed for (the AAD: it opens as nothing else). */
const SEALED_ROW = 'export journal row';
/** A sealed row's line: this, then the sealed bytes in base64. */
const SEALED_LINE = 'sealed:';

/**
 * The key an account's rows are sealed under (its cache's); undefined where the account's data is
 * kept in the clear (tests, benchmarks). Rejects when the account is locked, removed, or not the
 * active one: its rows are then unreadable here.
 */
export type JournalKeyOf = (accountId: string) => Promise<AccountKey | undefined>;

/**
 * What each export has done, kept in the app's data folder so that an export stopped by the app
 * closing, a crash or a full disk can be resumed — after a restart too — without exporting the
 * finished recordings again: `<id>.json`, what to export and how (written once, atomically), and
 * `<id>.rows.jsonl`, one finished row a line, appended as each recording finishes (a line torn
 * by a crash is ignored: that recording is exported again). An export that answers (finished or
 * cancelled by the user) removes its journal.
 *
 * A row names the patient, the files and who spoke: each is sealed on its own line under the
 * account's key, as its cache is. The header holds the recordings' ids, the folder and the
 * options, in the clear, so that a removed account's unfinished exports (its key destroyed
 * first) can still be given up: every recording's partial file is then looked for.
 */
export class ExportJournal {
  constructor(
    private readonly folder: string,
    private readonly keyOf: JournalKeyOf,
  ) {}

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
    return this.writer(header);
  }

  /** Appends to an existing journal (a resumed export), sealed under its account's key. */
  async writer(header: Pick<JournalHeader, 'journalId' | 'accountId'>): Promise<JournalWriter> {
    return new JournalWriter(this.rowsPath(header.journalId), await this.keyOf(header.accountId));
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
    // Without the key (the account locked or removed) its sealed rows read as not done.
    const key = await this.keyOf(header.accountId).catch(() => undefined);
    for (const line of text.split('\n')) {
      const row = parseRow(line, key);
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
      // Another account's: its rows are neither read nor opened.
      if ((await this.readHeader(journalId))?.accountId !== accountId) continue;
      const record = await this.load(journalId).catch(() => null);
      if (!record) continue;
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

  constructor(
    private readonly path: string,
    private readonly key: AccountKey | undefined,
  ) {}

  /** Records a row if it is finished; a journal that cannot be written only costs a redo. */
  append(row: ManifestRow): Promise<void> {
    if (!FINISHED.has(row.status)) return this.writes;
    const json = JSON.stringify(row);
    const line = this.key
      ? `${SEALED_LINE}${this.key.seal(SEALED_ROW, Buffer.from(json, 'utf8')).toString('base64')}`
      : json;
    this.writes = this.writes.then(() => appendFile(this.path, `${line}\n`)).catch(() => undefined);
    return this.writes;
  }

  /** Waits for the rows handed in so far. */
  flushed(): Promise<void> {
    return this.writes;
  }
}

/** A line's row: sealed (opened with `key`) or, as versions before 2026-11-28 wrote it, clear. */
function parseRow(line: string, key: AccountKey | undefined): ManifestRow | null {
  if (!line.trim()) return null;
  try {
    const json = line.startsWith(SEALED_LINE)
      ? key
          ?.unseal(SEALED_ROW, Buffer.from(line.slice(SEALED_LINE.length), 'base64'))
          .toString('utf8')
      : line;
    if (json === undefined) return null;
    const row = JSON.parse(json) as ManifestRow;
    return typeof row.labelId === 'string' && FINISHED.has(row.status) ? row : null;
  } catch {
    return null;
  }
}
