import type { Migration } from '../migrate';

/**
 * The patients of cached recordings (for assigning one) are read by grouping labels by patient:
 * a partial index holding every column that read needs lets SQLite answer from the index alone,
 * without visiting the rows of the labels that have no patient.
 */
export const migration: Migration = {
  version: 4,
  name: 'patients index',
  up(db) {
    db.exec(`
      CREATE INDEX labels_by_patient ON labels (patient_id, patient_name, from_ms)
        WHERE patient_id IS NOT NULL;
    `);
  },
};
