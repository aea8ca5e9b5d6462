/**
 * The cache's tables keyed by a record (a label), apart from `labels` itself: each row belongs
 * to one record and goes with it, so the statement that deletes a record — a cleanup's, or the
 * sync's when the service deleted it — deletes its rows, their full-text entries (their triggers
 * fire) and all, in one transaction. Most reference `labels (id) ON DELETE CASCADE`; what the
 * user made here (review marks, speaker names) has no foreign key, since a damaged cache's copy
 * of it is salvaged into a new one before the sync brings its records back, and a trigger on
 * `labels` deletes it instead (`cascades: false`). A test holds this list to the schema: a table
 * that references labels, or has a `label_id`, and is not listed here, or whose rows outlive
 * their record, fails it (test/main/cache/retention.test.ts).
 *
 * A new record-keyed table (review marks, speaker names…) is one line here: its name, the column
 * holding the record's id, and the size of the clinical text a row holds (what "Data on this
 * computer" counts when it says how much the next cleanup frees), or null when it holds none.
 */
export interface RecordTable {
  table: string;
  labelColumn: string;
  /** Whether a foreign key cascades the record's deletion (else a trigger on labels does). */
  cascades: boolean;
  /** SQL over one row: the bytes of clinical text it holds; null for none. */
  textBytes: string | null;
}

export const RECORD_TABLES: readonly RecordTable[] = [
  { table: 'notes', labelColumn: 'label_id', cascades: true, textBytes: 'octet_length(content)' },
  { table: 'kept_records', labelColumn: 'label_id', cascades: true, textBytes: null },
  { table: 'review_records', labelColumn: 'label_id', cascades: false, textBytes: null },
  { table: 'review_versions', labelColumn: 'label_id', cascades: false, textBytes: null },
  {
    table: 'speaker_overlays',
    labelColumn: 'label_id',
    cascades: false,
    textBytes: 'octet_length(names)',
  },
  {
    table: 'speaker_lines',
    labelColumn: 'label_id',
    cascades: false,
    textBytes: 'octet_length(speaker) + octet_length(text)',
  },
];
