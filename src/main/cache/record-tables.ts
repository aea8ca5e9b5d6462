/**
 * The cache's tables keyed by a record (a label), apart from `labels` itself: each row belongs
 * to one record and goes with it. Every one references `labels (id) ON DELETE CASCADE`, so the
 * statement that deletes a record — a cleanup's, or the sync's when the service deleted it —
 * deletes its rows, their full-text entries (their triggers fire) and all, in one transaction.
 * A test holds this list to the schema: a table that references labels, or has a `label_id`, and
 * is not listed here, or does not cascade, fails it (test/main/cache/retention.test.ts).
 *
 * A new record-keyed table (review marks, speaker names…) is one line here: its name, the column
 * holding the record's id, and the size of the clinical text a row holds (what "Data on this
 * computer" counts when it says how much the next cleanup frees), or null when it holds none.
 */
export interface RecordTable {
  table: string;
  labelColumn: string;
  /** SQL over one row: the bytes of clinical text it holds; null for none. */
  textBytes: string | null;
}

export const RECORD_TABLES: readonly RecordTable[] = [
  { table: 'notes', labelColumn: 'label_id', textBytes: 'octet_length(content)' },
  { table: 'kept_records', labelColumn: 'label_id', textBytes: null },
];
