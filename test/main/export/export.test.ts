import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../../support/skip';
import { AudioError, fileErrorOf } from '../../../src/main/audio/errors';
import {
  csvField,
  exportLabels,
  manifestCsv,
  type ExportProgress,
  type ManifestRow,
} from '../../../src/main/export/export';
import { useProxiedService } from '../service-client/helpers';
import * as fx from '../audio/fixtures';

const env = useProxiedService();
let wavId: string;
let mp4Id: string;
let silentId: string;
let processingId: string;
let hostileId: string;
let bigIds: string[];

beforeAll(() => {
  const orgId = env.svc.credentials.primary.organizationId;
  const { service } = env.svc;
  wavId = fx.seedLabel(service, orgId, {
    patient: 'Maple',
    notes: [
      ['Transcript', 'Speaker 1: first pass', 5],
      ['SOAP', 'S: vaccination', 6],
      ['NotesTranscript', 'Speaker 1: regenerated, the current one', 7],
    ],
  });
  mp4Id = fx.seedLabel(service, orgId, {
    audio: 'mp4',
    patient: 'Biscuit',
    notes: [['Transcript', 'Caller: lab results please', 1]],
  });
  silentId = fx.seedLabel(service, orgId, {
    audio: 'none',
    patient: 'Rocky',
    type: 'DictationAudio',
    notes: [['Transcript', 'Dictated, no audio kept', 1]],
  });
  processingId = fx.seedLabel(service, orgId, {
    patient: 'Pending',
    fromMs: Date.UTC(2026, 9, 2, 11, 0),
    notes: [['Transcript', '{}', 1]],
  });
  hostileId = fx.seedLabel(service, orgId, {
    patient: '=HYPERLINK("http://x","click")',
    fromMs: Date.UTC(2026, 9, 3, 8, 0),
  });
  bigIds = [1, 2, 3].map((i) =>
    fx.seedLabel(service, orgId, {
      minutes: 4,
      patient: `Big ${i}`,
      fromMs: Date.UTC(2026, 9, 4, 8, i),
    }),
  );
});

const labels = () => env.client.labels;
const hidden = (folder: string) => readdirSync(folder).filter((name) => name.startsWith('.'));

describe('exportLabels', () => {
  it('exports audio, transcripts beside it and a manifest whose hashes match the files', async () => {
    const folder = fx.tempFolder('earmark-export-');
    const progress: ExportProgress[] = [];
    const ids = [wavId, mp4Id, silentId, processingId];
    const result = await exportLabels(labels(), ids, {
      folder,
      transcripts: true,
      concurrency: 2,
      onProgress: (p) => progress.push(p),
      now: () => new Date('2026-11-21T10:00:00Z'),
    });
    expect(result.status).toBe('completed');
    expect(result.rows.map((r) => [r.labelId, r.status])).toEqual([
      [wavId, 'exported'],
      [mp4Id, 'exported'],
      [silentId, 'no_audio'],
      [processingId, 'exported'],
    ]);
    const [wav, mp4, silent, processing] = result.rows as [
      ManifestRow,
      ManifestRow,
      ManifestRow,
      ManifestRow,
    ];

    // Named in plain words (the kind, not the service's type name).
    expect(wav.file).toMatch(/^Maple .* Clinic recording\.wav$/);
    expect(mp4.file).toMatch(/^Biscuit .* Phone call\.m4a$/);
    expect(mp4.contentType).toBe('audio/mp4');
    for (const row of [wav, mp4, processing]) {
      const path = join(folder, row.file!);
      expect(fx.sha256File(path)).toBe(row.sha256);
      expect(readFileSync(path).length).toBe(row.bytes);
      expect(row.sha256).toBe(fx.sha256(await fx.serviceAudio(env.svc, row.labelId)));
    }
    // The current transcript by the seed's rule (newest across Transcript and NotesTranscript).
    expect(wav.transcriptFile).toBe(wav.file!.replace(/\.wav$/, '.txt'));
    expect(readFileSync(join(folder, wav.transcriptFile!), 'utf8')).toBe(
      'Speaker 1: regenerated, the current one\n',
    );
    expect(readFileSync(join(folder, mp4.transcriptFile!), 'utf8')).toBe(
      'Caller: lab results please\n',
    );
    // No audio: listed as such; its transcript still exported, named after the label.
    expect(silent).toMatchObject({
      status: 'no_audio',
      file: null,
      sha256: null,
      patient: 'Rocky',
      type: 'DictationAudio',
    });
    expect(silent.transcriptFile).toMatch(/^Rocky .* Dictation\.txt$/);
    // A transcript still processing ("{}") is not written.
    expect(processing.transcriptFile).toBeNull();

    // The manifest, in both forms.
    expect(result.manifestCsv).toBe(join(folder, 'manifest.csv'));
    const json = JSON.parse(readFileSync(result.manifestJson, 'utf8')) as {
      exportedAt: string;
      labels: ManifestRow[];
    };
    expect(json.exportedAt).toBe('2026-11-21T10:00:00.000Z');
    expect(json.labels).toEqual(result.rows);
    const csv = readFileSync(result.manifestCsv, 'utf8');
    expect(
      csv.startsWith(
        '\ufefflabel_id,patient,type,from_time,to_time,status,file,size_bytes,sha256,',
      ),
    ).toBe(true);
    const lines = csv.slice(1).trimEnd().split('\r\n');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toContain(`${wavId},Maple,ClinicConversation,`);
    expect(lines[1]).toContain(`,exported,${wav.file},${wav.bytes},${wav.sha256},audio/wav,`);
    expect(lines[3]).toContain(`${silentId},Rocky,DictationAudio,`);
    expect(lines[3]).toContain(',no_audio,,,,,');

    // Progress: per file and overall, ending with every file done.
    const last = progress.at(-1)!;
    expect(last.filesDone).toBe(4);
    expect(last.filesTotal).toBe(4);
    expect(last.bytesDone).toBe(wav.bytes! + mp4.bytes! + processing.bytes!);
    expect(progress.some((p) => p.file.state === 'downloading')).toBe(true);
    expect(new Set(progress.map((p) => p.file.labelId))).toEqual(new Set(ids));

    expect(hidden(folder)).toEqual([]);
    // The clinical note beside the audio, with its hash; no subtitles without line times.
    expect(wav.clinicalNoteFile).toBe(wav.file!.replace(/\.wav$/, '.soap.txt'));
    expect(wav.clinicalNoteSha256).toBe(
      fx.sha256(readFileSync(join(folder, wav.clinicalNoteFile!))),
    );
    expect(wav.transcriptSha256).toBe(fx.sha256(readFileSync(join(folder, wav.transcriptFile!))));
    expect(readFileSync(join(folder, wav.clinicalNoteFile!), 'utf8')).toBe(
      'Subjective\nvaccination\n',
    );
    expect(wav.subtitlesFile).toBeNull();
    expect(readdirSync(folder).sort()).toEqual(
      [
        wav.file,
        wav.transcriptFile,
        wav.clinicalNoteFile,
        mp4.file,
        mp4.transcriptFile,
        silent.transcriptFile,
        processing.file,
      ]
        .concat(['manifest.csv', 'manifest.json'])
        .sort(),
    );
  });

  it('exporting again into the same folder keeps both, audio and transcript paired', async () => {
    const folder = fx.tempFolder('earmark-export-');
    await exportLabels(labels(), [wavId], { folder, transcripts: true });
    const again = await exportLabels(labels(), [wavId], { folder, transcripts: true });
    const row = again.rows[0]!;
    expect(row.file).toMatch(/ \(2\)\.wav$/);
    expect(row.transcriptFile).toBe(row.file!.replace(/\.wav$/, '.txt'));
    expect(again.manifestCsv).toBe(join(folder, 'manifest (2).csv'));
    expect(again.manifestJson).toBe(join(folder, 'manifest (2).json'));

    const skipped = await exportLabels(labels(), [wavId], { folder, onExists: 'skip' });
    expect(skipped.rows[0]).toMatchObject({ status: 'skipped', file: null });
    expect(hidden(folder)).toEqual([]);
  });

  it('a resumed export takes files a crash left unrecorded as its own, not a copy beside them', async () => {
    const folder = fx.tempFolder('earmark-export-');
    // What a crash between the rename and the journal's line leaves: the files, no row.
    const first = await exportLabels(labels(), [wavId, mp4Id], { folder, transcripts: true });
    const [wav, mp4] = first.rows;
    // mp4's file is replaced by other bytes: not the same recording's, so it is kept beside.
    writeFileSync(join(folder, mp4!.file!), 'someone else’s file');
    for (const name of readdirSync(folder).filter((n) => n.startsWith('manifest'))) {
      rmSync(join(folder, name));
    }

    const resumed = await exportLabels(labels(), [wavId, mp4Id], {
      folder,
      transcripts: true,
      done: [],
    });
    expect(resumed.rows[0]).toMatchObject({
      status: 'exported',
      file: wav!.file,
      transcriptFile: wav!.transcriptFile,
      sha256: wav!.sha256,
    });
    expect(resumed.rows[1]!.file).toMatch(/ \(2\)\.m4a$/);
    expect(readdirSync(folder).sort()).toEqual(
      [
        wav!.file!,
        wav!.transcriptFile!,
        wav!.clinicalNoteFile!,
        mp4!.file!,
        mp4!.transcriptFile!,
        resumed.rows[1]!.file!,
        resumed.rows[1]!.transcriptFile!,
        'manifest.csv',
        'manifest.json',
      ].sort(),
    );
    // A new export (not a resume) keeps both, as the user asked.
    const again = await exportLabels(labels(), [wavId], { folder, transcripts: true });
    expect(again.rows[0]!.file).toMatch(/ \(2\)\.wav$/);
  });

  it('a resumed export takes its numbered file as its own when another file held the name first', async () => {
    const folder = fx.tempFolder('earmark-export-');
    // Another file holds the recording's name, so the export writes "… (2).wav" beside it.
    const plain = await exportLabels(labels(), [wavId], { folder });
    writeFileSync(join(folder, plain.rows[0]!.file!), 'someone else’s file');
    const first = await exportLabels(labels(), [wavId], { folder, transcripts: true });
    expect(first.rows[0]!.file).toMatch(/ \(2\)\.wav$/);
    // The crash came before the journal's line: the files, no row.
    for (const name of readdirSync(folder).filter((n) => n.startsWith('manifest'))) {
      rmSync(join(folder, name));
    }
    const before = readdirSync(folder).sort();

    const resumed = await exportLabels(labels(), [wavId], { folder, transcripts: true, done: [] });
    expect(resumed.rows[0]).toMatchObject({
      status: 'exported',
      file: first.rows[0]!.file,
      transcriptFile: first.rows[0]!.transcriptFile,
      sha256: first.rows[0]!.sha256,
    });
    expect(readdirSync(folder).sort()).toEqual([...before, 'manifest.csv', 'manifest.json'].sort());
  });

  it('protects spreadsheets from a patient name that is a formula', async () => {
    const folder = fx.tempFolder('earmark-export-');
    const result = await exportLabels(labels(), [hostileId], { folder });
    const csv = readFileSync(result.manifestCsv, 'utf8');
    expect(csv).toContain(`${hostileId},"'=HYPERLINK(""http://x"",""click"")",`);
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('-5')).toBe("'-5");
    expect(csvField(-5)).toBe('-5');
    expect(csvField(null)).toBe('');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(manifestCsv([]).split('\r\n')[0]).toBe(
      '\ufefflabel_id,patient,type,from_time,to_time,status,file,size_bytes,sha256,content_type,transcript_file,transcript_sha256,subtitles_file,subtitles_sha256,clinical_note_file,clinical_note_sha256,speakers,error',
    );
  });

  it('an unwritable folder: a typed error before any download, nothing left behind', async (context) => {
    const folder = fx.tempFolder('earmark-export-');
    const undo = fx.makeUnwritable(folder);
    if (typeof undo === 'string') return skipBecause(context, undo);
    try {
      const error = await exportLabels(labels(), [wavId, mp4Id], {
        folder,
        transcripts: true,
      }).then(
        () => expect.fail('expected folder_not_writable'),
        (reason: unknown) => reason as AudioError,
      );
      expect(error).toBeInstanceOf(AudioError);
      expect(error.kind).toBe('folder_not_writable');
      expect(env.proxy.requests).toEqual([]);
    } finally {
      undo();
    }
    expect(readdirSync(folder)).toEqual([]);
  });

  it('a missing folder: folder_missing', async () => {
    await expect(
      exportLabels(labels(), [wavId], { folder: join(fx.tempFolder(), 'nope') }),
    ).rejects.toMatchObject({
      kind: 'folder_missing',
    });
  });

  it('cancels: unfinished labels listed as cancelled, no partial file left, finished files whole', async () => {
    const folder = fx.tempFolder('earmark-export-');
    const controller = new AbortController();
    const result = await exportLabels(fx.throttled(labels(), 16 * 1024, 5), [wavId, ...bigIds], {
      folder,
      concurrency: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file.labelId === bigIds[0] && p.file.bytesDone > 256 * 1024) controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    const statuses = result.rows.map((r) => r.status);
    expect(statuses).toContain('cancelled');
    expect(result.rows.find((r) => r.labelId === bigIds[0])!.status).toBe('cancelled');
    for (const row of result.rows.filter((r) => r.status === 'exported')) {
      expect(fx.sha256File(join(folder, row.file!))).toBe(row.sha256);
    }
    expect(hidden(folder)).toEqual([]);
    const visible = readdirSync(folder).filter((n) => !n.startsWith('manifest'));
    expect(visible.sort()).toEqual(
      result.rows
        .filter((r) => r.file)
        .map((r) => r.file!)
        .sort(),
    );
  });

  it('maps a full disk and a read-only file system to typed errors', () => {
    const enospc = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    expect(fileErrorOf(enospc, '/x')).toMatchObject({ kind: 'disk_full', path: '/x' });
    expect(fileErrorOf(Object.assign(new Error('ro'), { code: 'EROFS' }), '/x').kind).toBe(
      'folder_not_writable',
    );
    expect(fileErrorOf(new Error('odd'), '/x').kind).toBe('io_error');
    expect(new AudioError('disk_full').toIpcError()).toEqual({
      kind: 'disk_full',
      message: 'The disk is full. Free some space or choose another folder.',
    });
  });
});
