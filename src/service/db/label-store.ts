import { randomUUID } from 'node:crypto';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Label, LabelListQuery, Note, RecordType } from '../../shared/api';
import { LABEL_LIST_DEFAULT_LIMIT } from '../../shared/api';
import { all, fewEnoughToLookUp, get, likeContaining, run } from '../../node-common/sql';
import type { ServiceDatabase } from './database';

export interface NoteInput {
  type: string;
  content: string;
  createdMs: number;
  timeMs: number;
}

export interface LabelAudioRow {
  label_id: string;
  content_type: 'audio/wav' | 'audio/mp4';
  byte_length: number;
  source_kind: 'recipe' | 'file';
  source: string;
}

export interface LabelInput {
  /** A UUIDv7 made now when absent (a seed may give its own, to be deterministic). */
  id?: string;
  organizationId: string;
  type: RecordType;
  fromMs: number;
  toMs: number;
  patientId?: string | null;
  userId?: string | null;
  friendlyName: string;
  deviceSerial: string;
  notes?: NoteInput[];
  audio?: Omit<LabelAudioRow, 'label_id'>;
}

interface LabelRow {
  id: string;
  organization_id: string;
  type: RecordType;
  from_ms: number;
  to_ms: number;
  patient_id: string | null;
  patient_name: string | null;
  friendly_name: string;
  device_serial: string;
}

interface NoteRow {
  label_id: string;
  type: string;
  content: string;
  created_ms: number;
  time_ms: number;
}

/** ORDER BY terms per sortingProperty; labels without a patient sort last either way. */
/**
 * Each order of the listing, then from_ms and id to break ties so pages never overlap or skip
 * rows. No term twice: a repeated one keeps SQLite from reading the index in order (it sorted
 * all of a million labels for every page).
 */
const SORT_ORDER = {
  FromTime: (direction: string) => `l.from_ms ${direction}, l.id ${direction}`,
  Type: (direction: string) => `l.type ${direction}, l.from_ms ${direction}, l.id ${direction}`,
  Patient: (direction: string) =>
    `p.name IS NULL, p.name COLLATE NOCASE ${direction}, l.from_ms ${direction}, l.id ${direction}`,
} as const;

const LABEL_COLUMNS = `l.id, l.organization_id, l.type, l.from_ms, l.to_ms, l.patient_id, p.name AS patient_name,
  l.friendly_name, l.device_serial`;

const iso = (ms: number) => new Date(ms).toISOString();

function toNote(row: NoteRow): Note {
  return {
    type: row.type,
    content: row.content,
    createdAt: iso(row.created_ms),
    time: iso(row.time_ms),
  };
}

function toLabel(row: LabelRow, notes: Note[] | null): Label {
  return {
    id: row.id,
    type: row.type,
    fromTime: iso(row.from_ms),
    toTime: iso(row.to_ms),
    patient:
      row.patient_id && row.patient_name ? { id: row.patient_id, name: row.patient_name } : null,
    ownedPatientNotes: notes,
    friendlyName: row.friendly_name,
    deviceSerial: row.device_serial,
  };
}

/** The patient filter as the labels of the matching patients, read by patient (labels_by_patient). */
const BY_PATIENT = `l.patient_id IN (
  SELECT id FROM patients WHERE organization_id = @organizationId AND name LIKE @patientSearch ESCAPE '\\')`;

export class LabelStore {
  constructor(private readonly db: ServiceDatabase) {}

  createPatient(
    organizationId: string,
    name: string,
    species: string,
    id: string = randomUUID(),
  ): string {
    run(this.db, 'INSERT INTO patients (id, organization_id, name, species) VALUES (?, ?, ?, ?)', [
      id,
      organizationId,
      name,
      species,
    ]);
    return id;
  }

  patient(id: string): { id: string; organization_id: string; name: string } | undefined {
    return get<{ id: string; organization_id: string; name: string }>(
      this.db,
      'SELECT id, organization_id, name FROM patients WHERE id = ?',
      id,
    );
  }

  /**
   * Inserts a label with its notes and audio; call inside the caller's transaction. Its id is a
   * UUIDv7, as the service's in the field are (the seed says only "UUID"): clients must not
   * read anything into an id's version.
   */
  create(input: LabelInput): string {
    const id = input.id ?? timeOrderedUuid();
    run(
      this.db,
      `INSERT INTO labels (id, organization_id, type, from_ms, to_ms, patient_id, user_id, friendly_name, device_serial)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        input.organizationId,
        input.type,
        input.fromMs,
        input.toMs,
        input.patientId ?? null,
        input.userId ?? null,
        input.friendlyName,
        input.deviceSerial,
      ],
    );
    for (const note of input.notes ?? []) this.addNote(id, note);
    if (input.audio) {
      run(
        this.db,
        'INSERT INTO label_audio (label_id, content_type, byte_length, source_kind, source) VALUES (?, ?, ?, ?, ?)',
        [
          id,
          input.audio.content_type,
          input.audio.byte_length,
          input.audio.source_kind,
          input.audio.source,
        ],
      );
    }
    return id;
  }

  addNote(labelId: string, note: NoteInput): void {
    run(
      this.db,
      'INSERT INTO notes (label_id, type, content, created_ms, time_ms) VALUES (?, ?, ?, ?, ?)',
      [labelId, note.type, note.content, note.createdMs, note.timeMs],
    );
  }

  organizationOf(labelId: string): string | undefined {
    const row = get<{ organization_id: string }>(
      this.db,
      'SELECT organization_id FROM labels WHERE id = ?',
      labelId,
    );
    return row?.organization_id;
  }

  get(labelId: string): Label | undefined {
    const row = get<LabelRow>(
      this.db,
      `SELECT ${LABEL_COLUMNS} FROM labels l LEFT JOIN patients p ON p.id = l.patient_id WHERE l.id = ?`,
      labelId,
    );
    if (!row) return undefined;
    const notes = all<NoteRow>(
      this.db,
      'SELECT * FROM notes WHERE label_id = ? ORDER BY id',
      labelId,
    );
    return toLabel(row, notes.map(toNote));
  }

  /** One page of an organization's labels and the total matching count. */
  list(organizationId: string, query: LabelListQuery): { items: Label[]; total: number } {
    const where = ['l.organization_id = @organizationId'];
    const params: Record<string, unknown> = { organizationId };
    if (query.types?.length) {
      const names = query.types.map((type, i) => {
        params[`type${i}`] = type;
        return `@type${i}`;
      });
      where.push(`l.type IN (${names.join(', ')})`);
    }
    if (query.fromTime !== undefined) {
      where.push('l.from_ms >= @fromMs');
      params.fromMs = Date.parse(query.fromTime);
    }
    if (query.toTime !== undefined) {
      where.push('l.from_ms < @toMs');
      params.toMs = Date.parse(query.toTime);
    }
    let byPatient = false;
    if (query.patientSearch) {
      params.patientSearch = likeContaining(query.patientSearch);
      byPatient = this.fewPatientsMatch(params);
      where.push(byPatient ? BY_PATIENT : "p.name LIKE @patientSearch ESCAPE '\\'");
    }
    if (query.userId !== undefined) {
      where.push('l.user_id = @userId');
      params.userId = query.userId;
    }
    const filter = `WHERE ${where.join(' AND ')}`;
    const labels = byPatient ? 'labels l INDEXED BY labels_by_patient' : 'labels l';
    const from = `FROM ${labels} LEFT JOIN patients p ON p.id = l.patient_id ${filter}`;
    const direction = query.isSortingDescending === false ? 'ASC' : 'DESC';
    const order = `ORDER BY ${SORT_ORDER[query.sortingProperty ?? 'FromTime'](direction)}`;
    // Counted without the patients unless their names are matched label by label: a join per
    // label cost half a second a count at a million.
    const counted = query.patientSearch && !byPatient ? from : `FROM ${labels} ${filter}`;
    const total = get<{ n: number }>(this.db, `SELECT count(*) AS n ${counted}`, params)!.n;
    const rows = all<LabelRow>(
      this.db,
      `SELECT ${LABEL_COLUMNS} ${from} ${order} LIMIT @limit OFFSET @offset`,
      {
        ...params,
        limit: query.limit ?? LABEL_LIST_DEFAULT_LIMIT,
        offset: query.offset ?? 0,
      },
    );
    return { items: rows.map((row) => toLabel(row, null)), total };
  }

  /**
   * Whether the organization's patients matching the search are few (fewEnoughToLookUp): their
   * labels are then looked up by patient; else every label of the list's range is read and its
   * patient's name matched (a surname at a million labels: 10 ms against 190).
   */
  private fewPatientsMatch(params: Record<string, unknown>): boolean {
    const { matched, patients } = get<{ matched: number | null; patients: number }>(
      this.db,
      `SELECT sum(name LIKE @patientSearch ESCAPE '\\') AS matched, count(*) AS patients
       FROM patients WHERE organization_id = @organizationId`,
      params,
    )!;
    return fewEnoughToLookUp(matched ?? 0, patients);
  }

  assign(labelId: string, patientId: string): void {
    run(this.db, 'UPDATE labels SET patient_id = ? WHERE id = ?', [patientId, labelId]);
  }

  delete(labelId: string): void {
    run(this.db, 'UPDATE conversations SET label_id = NULL WHERE label_id = ?', labelId);
    run(this.db, 'DELETE FROM labels WHERE id = ?', labelId);
  }

  audio(labelId: string): LabelAudioRow | undefined {
    return get<LabelAudioRow>(this.db, 'SELECT * FROM label_audio WHERE label_id = ?', labelId);
  }
}
