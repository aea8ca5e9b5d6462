import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../support/skip';
import { TOTAL_COUNT_HEADER, type Label } from '../../src/shared/api';
import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  ExportProgressEvent,
  ExportSummary,
  IpcError,
  LabelFilter,
} from '../../src/shared/ipc';
import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import type { Core, CoreOptions } from '../../src/main/core';
import { connectService } from '../../src/main/service-client/connect';
import { startService, type RunningService } from '../service/harness';
import { until } from '../service/poll';
import { mountSmallDisk } from '../support/small-disk';
import * as fx from './audio/fixtures';
import { testCore } from '../support/core';

/** The recordings screens' main-process side against the reference service on loopback. */
const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
// Midnight (UTC) three days ago: inside the sync's window, so one sync caches every label.
const DAY1 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
const DAY2 = DAY1 + DAY;
const onDay1 = { fromTime: iso(DAY1), toTime: iso(DAY2) };

let svc: RunningService;
let core: Core;
let exportsRoot: string;
let dataDir: string;
const keys = new SessionSecretStore();
const ids: Record<string, string> = {};
/** Folders the test's openFolder hook was asked to show (the system's file manager here). */
const shown: string[] = [];
/** While true, audio bodies trickle (a slow network), so an export can be cancelled mid-file. */
let slowAudio = false;

/** The real client, its audio slowed on demand. */
const connect: CoreOptions['connect'] = (baseUrl, apiKey) => {
  const client = connectService(baseUrl, apiKey);
  const labels = client.api.labels;
  const slow = fx.throttled(labels, 16 * 1024, 5);
  client.api.labels = {
    ...labels,
    audio: (...args) => (slowAudio ? slow.audio(...args) : labels.audio(...args)),
  };
  return client;
};

const result = <C extends ChannelName>(channel: C, input: ChannelInput<C>, on = core) =>
  on.rpc.invoke(channel, input);
async function call<C extends ChannelName>(
  channel: C,
  input: ChannelInput<C>,
  on = core,
): Promise<ChannelOutput<C>> {
  const answer = await result(channel, input, on);
  if (!answer.ok) throw new Error(`${channel}: ${JSON.stringify(answer.error)}`);
  return answer.value as ChannelOutput<C>;
}
async function refused(channel: ChannelName, input: unknown, on = core): Promise<IpcError> {
  const answer = await on.rpc.invoke(channel, input);
  if (answer.ok) throw new Error(`${channel} succeeded: ${JSON.stringify(answer.value)}`);
  return answer.error;
}

const idsOf = (labels: { id: string }[]) => labels.map((label) => label.id);
/** A page of labels.list with where it came from and when it was fetched, side by side. */
async function listPage(input: ChannelInput<'labels.list'>) {
  const { value, ...from } = await call('labels.list', input);
  return { ...value, ...from };
}
const hiddenFiles = (folder: string) => readdirSync(folder).filter((name) => name.startsWith('.'));

/** A new, registered export folder. */
async function exportFolder(name: string) {
  const path = join(exportsRoot, name);
  mkdirSync(path);
  return call('export.useFolder', { path });
}

/** Runs an export and keeps its progress events. */
async function runExport(
  input: Omit<ChannelInput<'export.run'>, 'exportId' | 'transcripts' | 'onExists'> &
    Partial<ChannelInput<'export.run'>>,
  onEvent: (event: ExportProgressEvent) => void = () => undefined,
) {
  const exportId = input.exportId ?? randomUUID();
  const events: ExportProgressEvent[] = [];
  const stop = core.on('export.progress', (event) => {
    if (event.exportId !== exportId) return;
    events.push(event);
    onEvent(event);
  });
  try {
    const answer = await result('export.run', {
      transcripts: false,
      onExists: 'keep-both',
      ...input,
      exportId,
    });
    return { exportId, answer, events };
  } finally {
    stop();
  }
}
const summaryOf = (answer: Awaited<ReturnType<typeof runExport>>['answer']): ExportSummary => {
  if (!answer.ok) throw new Error(`export.run: ${JSON.stringify(answer.error)}`);
  return answer.value as ExportSummary;
};

beforeAll(async () => {
  svc = await startService();
  const org = svc.credentials.primary.organizationId;
  const seed = (name: string, options: fx.SeedOptions) => {
    ids[name] = fx.seedLabel(svc.service, org, options);
  };
  seed('maple', {
    patient: 'Maple',
    fromMs: DAY1 + 9 * HOUR,
    notes: [['Transcript', 'Vet: Maple is due her booster.', 1]],
  });
  seed('mapleJunior', { patient: 'maple junior', fromMs: DAY1 + 10 * HOUR });
  seed('biscuit', { audio: 'mp4', patient: 'Biscuit', fromMs: DAY1 + 11 * HOUR });
  seed('dictation', {
    audio: 'none',
    type: 'DictationAudio',
    patient: 'Rocky',
    fromMs: DAY1 + 12 * HOUR,
    notes: [['Transcript', 'Dictated: Rocky is limping.', 1]],
  });
  seed('unassigned', { patient: null, fromMs: DAY2 + 9 * HOUR });
  seed('bramble', { patient: 'Bramble', fromMs: DAY2 + 10 * HOUR });
  seed('big1', { type: 'HubMic', minutes: 20, patient: null, fromMs: DAY2 + 14 * HOUR });
  seed('big2', { type: 'HubMic', minutes: 20, patient: null, fromMs: DAY2 + 15 * HOUR });

  exportsRoot = fx.tempFolder('earmark-recordings-');
  dataDir = fx.tempFolder('earmark-recordings-data-');
  core = openCore();
  await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
});
afterAll(async () => {
  await core?.close();
  await svc?.dispose();
});

const openCore = () =>
  testCore({
    dataDir,
    keychain: keys,
    connect,
    exportFolder: exportsRoot,
    openFolder: async (path) => {
      shown.push(path);
    },
  });

describe('the recordings list', () => {
  it('pages the service listing with X-Total-Count as the total', async () => {
    const first = await listPage({ limit: 3 });
    expect(first).toMatchObject({ source: 'service', total: 8 });
    expect(Date.parse(first.fetchedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect(first.items).toHaveLength(3);
    const response = await svc.call(
      `/organizations/${svc.credentials.primary.organizationId}/labels?limit=1`,
      { key: svc.credentials.primary.apiKey },
    );
    expect(Number(response.headers.get(TOTAL_COUNT_HEADER))).toBe(first.total);
    const second = await listPage({ limit: 3, offset: 3 });
    expect(second.total).toBe(8);
    expect(idsOf(second.items).some((id) => idsOf(first.items).includes(id))).toBe(false);
    // Newest first by default.
    expect(idsOf(first.items)).toEqual([ids.big2, ids.big1, ids.bramble]);
  });

  it('filters by types, dates and patient, as the service does', async () => {
    const query: LabelFilter = { types: ['ClinicConversation', 'DictationAudio'], ...onDay1 };
    const typed = await listPage(query);
    expect(typed.total).toBe(3);
    expect(new Set(idsOf(typed.items))).toEqual(
      new Set([ids.maple, ids.mapleJunior, ids.dictation]),
    );
    const named = await listPage({ patientSearch: 'MAPLE' });
    expect(new Set(idsOf(named.items))).toEqual(new Set([ids.maple, ids.mapleJunior]));
    expect(named.total).toBe(2);
  });

  it('sorts by patient or type, either way', async () => {
    const byPatient = await listPage({
      ...onDay1,
      sortingProperty: 'Patient',
      isSortingDescending: false,
    });
    expect(byPatient.items.map((label) => label.patient?.name)).toEqual([
      'Biscuit',
      'Maple',
      'maple junior',
      'Rocky',
    ]);
    const byTypeDown = await listPage({ sortingProperty: 'Type' });
    const types = byTypeDown.items.map((label) => label.type);
    expect(types).toEqual([...types].sort().reverse());
  });

  it('answers the same pages from the cache once it is synced (source cache)', async () => {
    await until(
      async () => (await call('sync.status', {})).lastSyncAt,
      (lastSyncAt) => lastSyncAt !== null,
      20_000,
    );
    const queries: ChannelInput<'labels.list'>[] = [
      {},
      { limit: 3, offset: 2 },
      { sortingProperty: 'Patient', isSortingDescending: false },
      { sortingProperty: 'Patient' },
      { sortingProperty: 'Type', isSortingDescending: false },
      { types: ['HubMic', 'PhoneCallAudio'] },
      { patientSearch: 'maple', ...onDay1 },
      { fromTime: iso(DAY2) },
    ];
    for (const query of queries) {
      const fresh = await listPage(query);
      const cached = await listPage({ ...query, source: 'cache' });
      expect(cached.source).toBe('cache');
      expect(cached.fetchedAt).not.toBeNull();
      expect({ query, ids: idsOf(cached.items), total: cached.total }).toEqual({
        query,
        ids: idsOf(fresh.items),
        total: fresh.total,
      });
    }
  });
});

describe('the recordings list by duration (issue 20)', () => {
  it('lists longest first from the cache, online too (the service cannot sort by it), with the filters', async () => {
    await expect
      .poll(async () => (await call('sync.status', {})).lastSyncAt, { timeout: 20_000 })
      .not.toBeNull();
    const longest = await listPage({ sortingProperty: 'Duration' });
    expect(longest.source).toBe('cache');
    expect(longest.total).toBe(8);
    const lengths = longest.items.map((l) => Date.parse(l.toTime) - Date.parse(l.fromTime));
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    expect(idsOf(longest.items).slice(0, 2).sort()).toEqual([ids.big1, ids.big2].sort());
    const shortestHub = await listPage({
      sortingProperty: 'Duration',
      isSortingDescending: false,
      types: ['HubMic'],
    });
    expect(shortestHub.total).toBe(2);
  });
});

describe('patients', () => {
  it('lists the cached patients whose name matches, with their recordings', async () => {
    expect(await call('labels.patients', { search: 'maple' })).toMatchObject([
      { name: 'Maple', recordings: 1 },
      { name: 'maple junior', recordings: 1 },
    ]);
    expect((await call('labels.patients', { search: '' })).map((p) => p.name)).toEqual([
      'Biscuit',
      'Bramble',
      'Maple',
      'maple junior',
      'Rocky',
    ]);
  });
});

describe('assigning a patient', () => {
  it('assigns, answers the recording as the service holds it, and a fresh list shows it', async () => {
    const patientId = svc.service.labels.createPatient(
      svc.credentials.primary.organizationId,
      'Juniper',
      'cat',
    );
    const label: Label = await call('labels.assign', { labelId: ids.unassigned!, patientId });
    expect(label).toMatchObject({
      id: ids.unassigned,
      patient: { id: patientId, name: 'Juniper' },
    });
    const fresh = await listPage({ patientSearch: 'juniper' });
    expect(idsOf(fresh.items)).toEqual([ids.unassigned]);
    const cached = await listPage({ patientSearch: 'juniper', source: 'cache' });
    expect(idsOf(cached.items)).toEqual([ids.unassigned]);
    expect(await call('labels.patients', { search: 'JUNIPER' })).toEqual([
      { id: patientId, name: 'Juniper', recordings: 1 },
    ]);
  });

  it('says which was not found: the patient, or the recording', async () => {
    const noPatient = await refused('labels.assign', { labelId: ids.maple, patientId: 'P-404' });
    expect(noPatient.kind).toBe('not_found');
    expect(noPatient.message).toBe(
      'The clinic service has no patient with the id "P-404". No patient was assigned.',
    );
    expect((await call('labels.get', { labelId: ids.maple! })).value.patient?.name).toBe('Maple');
    const noLabel = await refused('labels.assign', { labelId: randomUUID(), patientId: 'P-404' });
    expect(noLabel).toMatchObject({
      kind: 'not_found',
      message: 'This recording is no longer on the clinic service, so no patient was assigned.',
    });
  });
});

describe('export folders', () => {
  it('app.info says folders are typed in the browser shell, and where exports go', async () => {
    expect(await call('app.info', {})).toMatchObject({
      shell: 'browser',
      folderChoice: 'path',
      defaultExportFolder: exportsRoot,
    });
  });

  it('takes a typed full path to a writable folder and gives it an id, the same each time', async () => {
    const folder = await exportFolder('typed');
    expect(folder.path).toBe(join(exportsRoot, 'typed'));
    expect(await call('export.useFolder', { path: `${folder.path}/` })).toEqual(folder);
  });

  it('refuses a relative path, a file, and a folder that does not exist', async () => {
    expect(await refused('export.useFolder', { path: 'exports' })).toMatchObject({
      kind: 'invalid_input',
      message: expect.stringContaining('"exports" is not a full path') as string,
    });
    const file = join(exportsRoot, 'a-file.txt');
    writeFileSync(file, 'x');
    expect(await refused('export.useFolder', { path: file })).toEqual({
      kind: 'invalid_input',
      message: `${file} is a file, not a folder.`,
    });
    const missing = join(exportsRoot, 'missing');
    expect(await refused('export.useFolder', { path: missing })).toEqual({
      kind: 'folder_missing',
      message: `There is no folder ${missing}. Choose another folder.`,
    });
  });

  it('refuses a folder id it never gave', async () => {
    const error = await refused('export.run', {
      exportId: randomUUID(),
      folderId: randomUUID(),
      labels: { ids: [ids.maple] },
      transcripts: false,
      onExists: 'keep-both',
    });
    expect(error.kind).toBe('not_found');
    expect(error.message).toMatch(/does not know this export folder.*Choose the folder again/);
  });

  it('has no folder dialog in the browser shell', async () => {
    expect(await refused('export.chooseFolder', {})).toMatchObject({
      kind: 'unsupported',
      message: expect.stringContaining('Type the full path') as string,
    });
  });

  it('Electron: only the system dialog picks folders, never a path from the renderer', async () => {
    const picked = join(exportsRoot, 'picked');
    mkdirSync(picked);
    const answers: (string | null)[] = [picked, null];
    const startedIn: string[] = [];
    const electron = testCore({
      dataDir: fx.tempFolder('earmark-recordings-electron-'),
      shell: 'electron',
      exportFolder: exportsRoot,
      chooseFolder: async (defaultPath) => {
        startedIn.push(defaultPath);
        return answers.shift() ?? null;
      },
    });
    try {
      expect((await call('app.info', {}, electron)).folderChoice).toBe('dialog');
      expect(await call('export.chooseFolder', {}, electron)).toEqual({
        folderId: expect.any(String) as string,
        path: picked,
      });
      expect(startedIn).toEqual([exportsRoot]);
      expect(await call('export.chooseFolder', {}, electron)).toBeNull();
      expect(await refused('export.useFolder', { path: picked }, electron)).toMatchObject({
        kind: 'unsupported',
      });
    } finally {
      await electron.close();
    }
  });
});

/** Each exported file is the service's audio, and the manifest's hash is the file's. */
async function expectWholeFiles(summary: ExportSummary) {
  const manifest = JSON.parse(
    readFileSync(join(summary.folder, summary.manifestFiles[1]!), 'utf8'),
  ) as { labels: { labelId: string; sha256: string | null; file: string | null }[] };
  for (const row of summary.rows.filter((r) => r.status === 'exported')) {
    const onDisk = fx.sha256File(join(summary.folder, row.file!));
    expect(onDisk).toBe(row.sha256);
    expect(manifest.labels.find((entry) => entry.labelId === row.labelId)).toMatchObject({
      sha256: onDisk,
      file: row.file,
    });
    expect(onDisk).toBe(fx.sha256(await fx.serviceAudio(svc, row.labelId)));
  }
}

describe('export', () => {
  let finished: ExportSummary;

  it('exports recordings by id: whole files, hashes in the manifest, progress as it goes', async () => {
    const folder = await exportFolder('by-id');
    const { answer, events, exportId } = await runExport({
      folderId: folder.folderId,
      labels: { ids: [ids.maple!, ids.biscuit!] },
      transcripts: true,
    });
    finished = summaryOf(answer);
    expect(finished).toMatchObject({ exportId, status: 'completed', folder: folder.path });
    expect(finished.manifestFiles).toEqual(['manifest.csv', 'manifest.json']);
    expect(finished.rows.map((row) => [row.labelId, row.status])).toEqual([
      [ids.maple, 'exported'],
      [ids.biscuit, 'exported'],
    ]);
    await expectWholeFiles(finished);
    const maple = finished.rows[0]!;
    expect(readFileSync(join(folder.path, maple.textFiles[0]!), 'utf8')).toBe(
      'Vet: Maple is due her booster.\n',
    );
    // The summary names every file the export wrote.
    expect(readdirSync(folder.path).sort()).toEqual(
      [
        ...finished.rows.flatMap((row) => [row.file!, ...row.textFiles]),
        ...finished.manifestFiles,
      ].sort(),
    );
    // Progress: each file started and ended, and the last event counts both.
    for (const id of [ids.maple, ids.biscuit]) {
      const states = events.filter((e) => e.file.labelId === id).map((e) => e.file.state);
      expect(states[0]).toBe('downloading');
      expect(states.at(-1)).toBe('exported');
    }
    expect(events.at(-1)).toMatchObject({ filesDone: 2, filesTotal: 2 });
    expect(events.at(-1)!.bytesDone).toBe(finished.rows.reduce((n, r) => n + r.bytes!, 0));
  });

  it('runs an export id once only', async () => {
    const error = await refused('export.run', {
      exportId: finished.exportId,
      folderId: (await exportFolder('again')).folderId,
      labels: { ids: [ids.maple] },
      transcripts: false,
      onExists: 'keep-both',
    });
    expect(error.kind).toBe('conflict');
  });

  it('exports every recording matching a filter, a recording without audio listed as such', async () => {
    const folder = await exportFolder('by-filter');
    const filter: LabelFilter = { types: ['ClinicConversation', 'DictationAudio'], ...onDay1 };
    const summary = summaryOf(
      (await runExport({ folderId: folder.folderId, labels: { filter } })).answer,
    );
    const listed = await listPage({ ...filter, limit: 500 });
    expect(summary.rows.map((row) => row.labelId).sort()).toEqual(idsOf(listed.items).sort());
    expect(summary.rows.find((row) => row.labelId === ids.dictation)).toMatchObject({
      status: 'no_audio',
      file: null,
    });
    expect(summary.rows.filter((row) => row.status === 'exported')).toHaveLength(2);
    await expectWholeFiles(summary);
  });

  it('says so when a filter matches nothing, and writes nothing', async () => {
    const folder = await exportFolder('nothing');
    const { answer } = await runExport({
      folderId: folder.folderId,
      labels: { filter: { patientSearch: 'nobody by this name' } },
    });
    expect(answer).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(readdirSync(folder.path)).toEqual([]);
  });

  it('cancels mid-file: no partial file, the manifest lists the recordings as cancelled', async () => {
    const folder = await exportFolder('cancelled');
    slowAudio = true;
    let cancelled: Promise<unknown> | undefined;
    try {
      const { answer, exportId, events } = await runExport(
        { folderId: folder.folderId, labels: { ids: [ids.big1!, ids.big2!] } },
        (event) => {
          if (!cancelled && event.file.bytesDone > 256 * 1024)
            cancelled = core.rpc.invoke('export.cancel', { exportId: event.exportId });
        },
      );
      expect(await cancelled).toEqual({ ok: true, value: null });
      const summary = summaryOf(answer);
      expect(summary.status).toBe('cancelled');
      expect(summary.rows.map((row) => row.status)).toEqual(['cancelled', 'cancelled']);
      expect(events.some((e) => e.file.state === 'cancelled')).toBe(true);
      expect(hiddenFiles(folder.path)).toEqual([]);
      expect(readdirSync(folder.path).sort()).toEqual(summary.manifestFiles.sort());
      // Cancelling a finished export changes nothing.
      expect(await call('export.cancel', { exportId })).toBeNull();
    } finally {
      slowAudio = false;
    }
    expect(await refused('export.cancel', { exportId: randomUUID() })).toMatchObject({
      kind: 'not_found',
    });
  });

  it('an unwritable folder: a clear error naming it, nothing written', async (context) => {
    const folder = await exportFolder('read-only');
    const undo = fx.makeUnwritable(folder.path);
    if (typeof undo === 'string') return skipBecause(context, undo);
    try {
      const { answer } = await runExport({
        folderId: folder.folderId,
        labels: { ids: [ids.maple!] },
        transcripts: true,
      });
      expect(answer).toEqual({
        ok: false,
        error: {
          kind: 'folder_not_writable',
          message: `Earmark cannot write to ${folder.path}. Choose another folder.`,
        },
      });
    } finally {
      undo();
    }
    expect(readdirSync(folder.path)).toEqual([]);
  });

  it('a folder whose disk fills up: a clear error, no partial file, whole files only', async (context) => {
    const folder = join(exportsRoot, 'small-disk');
    mkdirSync(folder);
    // Room for one 2-minute recording (1.9 MB), not two.
    const unmount = mountSmallDisk(folder, 3 * 1024 * 1024);
    if (typeof unmount === 'string') return skipBecause(context, unmount);
    try {
      const { folderId } = await call('export.useFolder', { path: folder });
      const { answer } = await runExport({
        folderId,
        labels: { ids: [ids.maple!, ids.mapleJunior!] },
        transcripts: true,
      });
      expect(answer.ok).toBe(false);
      const error = (answer as { error: IpcError }).error;
      expect(error.kind).toBe('disk_full');
      expect(error.message).toMatch(
        new RegExp(
          `^The disk holding ${folder} is full\\. Free some space or choose another folder\\.`,
        ),
      );
      expect(hiddenFiles(folder)).toEqual([]);
      const whole = new Set([
        fx.sha256(await fx.serviceAudio(svc, ids.maple!)),
        fx.sha256(await fx.serviceAudio(svc, ids.mapleJunior!)),
      ]);
      // What is left is whole recordings (with their transcripts): no manifest, nothing else.
      const left = readdirSync(folder);
      const audio = left.filter((name) => name.endsWith('.wav'));
      expect(audio.length).toBeLessThan(2);
      for (const name of audio) expect(whole.has(fx.sha256File(join(folder, name)))).toBe(true);
      const beside = new Set(audio.map((name) => name.replace(/\.wav$/, '.txt')));
      expect(left.filter((name) => !name.endsWith('.wav') && !beside.has(name))).toEqual([]);
    } finally {
      await unmount();
    }
  });

  it('opens the folder of a finished export, and only that', async () => {
    expect(await call('export.openFolder', { exportId: finished.exportId })).toBeNull();
    expect(shown).toEqual([finished.folder]);
    expect(await refused('export.openFolder', { exportId: randomUUID() })).toMatchObject({
      kind: 'not_found',
    });
  });

  it('closing the app cancels an export under way and leaves no partial file', async () => {
    const folder = await exportFolder('closed');
    slowAudio = true;
    try {
      let closed: Promise<void> | undefined;
      const { answer } = await runExport(
        { folderId: folder.folderId, labels: { ids: [ids.big1!] } },
        (event) => {
          if (!closed && event.file.bytesDone > 256 * 1024) closed = core.close();
        },
      );
      await closed;
      const summary = summaryOf(answer);
      expect(summary.status).toBe('cancelled');
      expect(summary.rows.map((row) => row.status)).toEqual(['cancelled']);
      expect(hiddenFiles(folder.path)).toEqual([]);
    } finally {
      slowAudio = false;
      core = openCore();
    }
  });
});

describe('an export the app stopped, resumed', () => {
  /** Starts an export of `labelIds` and closes the app once `closeWhen` says so; a new core after. */
  async function exportUntilClosed(
    labelIds: string[],
    closeWhen: (event: ExportProgressEvent) => boolean,
  ) {
    const folder = await exportFolder(`closed-${randomUUID().slice(0, 8)}`);
    slowAudio = true;
    try {
      let closed: Promise<void> | undefined;
      const { answer } = await runExport(
        { folderId: folder.folderId, labels: { ids: labelIds } },
        (event) => {
          if (!closed && closeWhen(event)) closed = core.close();
        },
      );
      await closed;
      return { folder, summary: summaryOf(answer) };
    } finally {
      slowAudio = false;
      core = openCore();
    }
  }
  /** The unfinished export with this id, if it is listed. */
  const unfinishedOne = async (journalId: string) =>
    (await call('export.unfinished', {})).find((u) => u.journalId === journalId);

  it('goes on after a restart: what was exported is not exported again; one manifest lists all', async () => {
    const labelIds = [ids.maple!, ids.mapleJunior!, ids.bramble!, ids.big2!];
    const { folder, summary } = await exportUntilClosed(
      labelIds,
      // The three small recordings are done and the big one is under way.
      (event) =>
        event.filesDone === 3 && event.file.labelId === ids.big2 && event.file.bytesDone > 0,
    );
    expect(summary.status).toBe('cancelled');
    expect(summary.rows.map((row) => row.status)).toEqual([
      'exported',
      'exported',
      'exported',
      'cancelled',
    ]);
    // Paused, not given up: no manifest yet (the resumed run writes the whole one).
    expect(summary.manifestFiles).toEqual([]);
    const firstFiles = summary.rows.slice(0, 3).map((row) => row.file!);
    expect(readdirSync(folder.path).sort()).toEqual([...firstFiles].sort());

    expect(await unfinishedOne(summary.exportId)).toMatchObject({
      folder: folder.path,
      total: 4,
      done: 3,
    });

    const events: ExportProgressEvent[] = [];
    const exportId = randomUUID();
    const stop = core.on('export.progress', (event) => {
      if (event.exportId === exportId) events.push(event);
    });
    const resumed = await call('export.resume', { exportId, journalId: summary.exportId });
    stop();
    expect(resumed.status).toBe('completed');
    expect(resumed.rows.map((row) => [row.labelId, row.status])).toEqual(
      labelIds.map((id) => [id, 'exported']),
    );
    // The first three are the same files, not copies ("(2)"): only the big one was downloaded.
    expect(resumed.rows.slice(0, 3).map((row) => row.file)).toEqual(firstFiles);
    expect(new Set(events.map((event) => event.file.labelId))).toEqual(new Set([ids.big2]));
    expect(events.at(-1)).toMatchObject({ filesDone: 4, filesTotal: 4 });
    expect(resumed.manifestFiles).toEqual(['manifest.csv', 'manifest.json']);
    await expectWholeFiles(resumed);
    expect(readdirSync(folder.path).sort()).toEqual(
      [...resumed.rows.map((row) => row.file!), ...resumed.manifestFiles].sort(),
    );
    // Finished: nothing is left to resume.
    expect(await unfinishedOne(summary.exportId)).toBeUndefined();
    expect(
      await refused('export.resume', { exportId: randomUUID(), journalId: summary.exportId }),
    ).toMatchObject({ kind: 'not_found' });
  }, 60_000);

  it('a row torn by a crash is exported again; a discarded export leaves its files and no partials', async () => {
    const labelIds = [ids.maple!, ids.big1!];
    const { folder, summary } = await exportUntilClosed(
      labelIds,
      (event) =>
        event.filesDone === 1 && event.file.labelId === ids.big1 && event.file.bytesDone > 0,
    );
    expect(await unfinishedOne(summary.exportId)).toMatchObject({ total: 2, done: 1 });
    // What a crash leaves: a half-written line at the end of the journal, a partial download.
    const rowsFile = join(dataDir, 'exports', `${summary.exportId}.rows.jsonl`);
    writeFileSync(rowsFile, `${readFileSync(rowsFile, 'utf8')}{"labelId":"${ids.big1}","sta`);
    writeFileSync(join(folder.path, `.${ids.big1}.earmark-partial`), 'half a file');
    const temporary = join(folder.path, '.earmark-0123456789ab.tmp');
    writeFileSync(temporary, 'a transcript being written');
    utimesSync(temporary, new Date(Date.now() - HOUR), new Date(Date.now() - HOUR));
    expect(await unfinishedOne(summary.exportId)).toMatchObject({ total: 2, done: 1 });

    expect(await call('export.discard', { journalId: summary.exportId })).toBeNull();
    expect(await unfinishedOne(summary.exportId)).toBeUndefined();
    expect(hiddenFiles(folder.path)).toEqual([]);
    // What it exported stays.
    expect(readdirSync(folder.path)).toEqual([summary.rows[0]!.file]);
    expect(await refused('export.discard', { journalId: summary.exportId })).toMatchObject({
      kind: 'not_found',
    });
  }, 60_000);

  it('an export the user cancels is not kept to resume', async () => {
    const folder = await exportFolder('cancelled-by-user');
    slowAudio = true;
    try {
      const { answer, exportId } = await runExport(
        { folderId: folder.folderId, labels: { ids: [ids.maple!, ids.big1!] } },
        (event) => {
          if (event.filesDone === 1 && event.file.bytesDone > 0)
            void call('export.cancel', { exportId: event.exportId });
        },
      );
      expect(summaryOf(answer).status).toBe('cancelled');
      expect(await unfinishedOne(exportId)).toBeUndefined();
    } finally {
      slowAudio = false;
    }
  });
});

describe('offline', () => {
  /** Pages the service answered before it went away: [query, ids, total]. */
  const servicePages: [ChannelInput<'labels.list'>, string[], number][] = [];

  // Synced, the service's answers to a filter and a sort noted, then the service gone.
  beforeAll(async () => {
    await call('sync.run', {});
    await until(
      async () => (await call('sync.status', {})).lastSyncAt,
      (lastSyncAt) => lastSyncAt !== null,
      20_000,
    );
    const queries: ChannelInput<'labels.list'>[] = [
      { types: ['ClinicConversation', 'DictationAudio'], ...onDay1 },
      { sortingProperty: 'Type' },
    ];
    for (const query of queries) {
      const page = await listPage(query);
      expect(page.source).toBe('service');
      servicePages.push([query, idsOf(page.items), page.total]);
    }
    await svc.close();
  }, 30_000);

  it('lists from the cache with the same filters and sorting when the service is gone', async () => {
    for (const [query, expectedIds, total] of servicePages) {
      const page = await listPage(query);
      expect(page.source).toBe('cache');
      expect(page.fetchedAt).not.toBeNull();
      expect({ ids: idsOf(page.items), total: page.total }).toEqual({ ids: expectedIds, total });
    }
    expect((await call('app.connection', {})).state).toBe('offline');
  });

  it('after a restart with no network, the cached list still says when it was synced', async () => {
    await core.close();
    core = openCore();
    const [query, expectedIds] = servicePages[0]!;
    const page = await listPage({ ...query, source: 'cache' });
    expect(idsOf(page.items)).toEqual(expectedIds);
    expect(Date.parse(page.fetchedAt!)).toBeGreaterThan(DAY2);
  });

  it('exports by filter from the cached listing; audio it cannot fetch is reported per recording', async () => {
    const folder = await exportFolder('offline');
    const summary = summaryOf(
      (
        await runExport({
          folderId: folder.folderId,
          labels: { filter: { types: ['PhoneCallAudio'] } },
        })
      ).answer,
    );
    expect(summary.rows).toMatchObject([
      {
        labelId: ids.biscuit,
        status: 'failed',
        error: expect.stringContaining('cannot be reached') as string,
      },
    ]);
    expect(hiddenFiles(folder.path)).toEqual([]);
  });
});
