import type { Migration } from '../migrate';

/** A label's patient, as `patients` keys it (a name the service left out is ''). */
const pair = (row: 'old' | 'new') => `${row}.patient_id, coalesce(${row}.patient_name, '')`;

/** One more label of the row's patient. */
const counted = `
  INSERT INTO patients (patient_id, patient_name, labels, newest_ms)
    VALUES (${pair('new')}, 1, new.from_ms)
    ON CONFLICT (patient_id, patient_name) DO UPDATE
      SET labels = labels + 1, newest_ms = max(newest_ms, excluded.newest_ms);`;

/** One label fewer of the row's patient: its newest start read again (an index seek), gone at none. */
const uncounted = `
  UPDATE patients SET labels = labels - 1, newest_ms = coalesce(
    (SELECT max(from_ms) FROM labels
      WHERE patient_id = old.patient_id AND patient_name IS old.patient_name),
    newest_ms)
   WHERE (patient_id, patient_name) = (${pair('old')});
  DELETE FROM patients WHERE (patient_id, patient_name) = (${pair('old')}) AND labels <= 0;`;

/**
 * The patients of the cached labels, kept (issue 31). The seed has no patient list, so the
 * patients a record can be assigned to, and the labels a patient filter matches, were found by
 * reading every label that has one: at 1M, 56 ms for each keystroke in the patient picker, 77 ms
 * for the Recordings list filtered by a patient alone. A clinic has a few thousand patients.
 *
 * - `patients`: one row per patient id and name its labels carry (a patient renamed on the
 *   service has a row per name until its labels are listed again), how many labels, and the
 *   newest one's start. Triggers on `labels` keep it: an insert counts, a delete uncounts, an
 *   update of the patient or the start does both.
 * - The picker reads it whole (src/main/cache/labels.ts, `patients`); the list's patient filter
 *   finds the matching pairs here and, when their labels are few, reads those labels through
 *   `labels_by_patient` (004) instead of every label in the list's range.
 */
export const migration: Migration = {
  version: 13,
  name: 'patients',
  up(db) {
    db.exec(`
      CREATE TABLE patients (
        patient_id TEXT NOT NULL,
        patient_name TEXT NOT NULL,
        labels INTEGER NOT NULL,
        newest_ms INTEGER NOT NULL,
        PRIMARY KEY (patient_id, patient_name)
      ) WITHOUT ROWID;
      INSERT INTO patients (patient_id, patient_name, labels, newest_ms)
        SELECT patient_id, coalesce(patient_name, ''), count(*), max(from_ms)
          FROM labels WHERE patient_id IS NOT NULL
         GROUP BY patient_id, coalesce(patient_name, '');

      CREATE TRIGGER patients_insert AFTER INSERT ON labels
      WHEN new.patient_id IS NOT NULL BEGIN ${counted}
      END;
      CREATE TRIGGER patients_delete AFTER DELETE ON labels
      WHEN old.patient_id IS NOT NULL BEGIN ${uncounted}
      END;
      CREATE TRIGGER patients_update AFTER UPDATE OF patient_id, patient_name, from_ms ON labels
      WHEN old.patient_id IS NOT new.patient_id OR old.patient_name IS NOT new.patient_name
        OR old.from_ms IS NOT new.from_ms BEGIN
        ${uncounted}
        INSERT INTO patients (patient_id, patient_name, labels, newest_ms)
          SELECT ${pair('new')}, 1, new.from_ms WHERE new.patient_id IS NOT NULL
          ON CONFLICT (patient_id, patient_name) DO UPDATE
            SET labels = labels + 1, newest_ms = max(newest_ms, excluded.newest_ms);
      END;
    `);
  },
};
