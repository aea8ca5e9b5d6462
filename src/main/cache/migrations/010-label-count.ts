import type { Migration } from '../migrate';

/**
 * The number of cached labels, kept (issue 31). The Recordings list shows its length with every
 * page it reads from the cache, and counting a million labels reads the smallest of their
 * indexes whole: 17 MiB at 1M, decrypted page by page whenever the sync or a page of the list
 * kept from the service has written since (a write empties the readers' page caches), 31 ms
 * and more a page while scrolling. The unfiltered list reads this row instead; a filtered one
 * still counts its matches.
 *
 * `label_count` holds one row. Triggers keep it: an insert that becomes an update (an UPSERT of
 * a label already held) fires no insert trigger, as the full-text triggers of 009 rely on too.
 */
export const migration: Migration = {
  version: 10,
  name: 'label count',
  up(db) {
    db.exec(`
      CREATE TABLE label_count (
        only INTEGER PRIMARY KEY CHECK (only = 1),
        labels INTEGER NOT NULL
      );
      INSERT INTO label_count (only, labels) SELECT 1, count(*) FROM labels;
      CREATE TRIGGER label_count_insert AFTER INSERT ON labels BEGIN
        UPDATE label_count SET labels = labels + 1;
      END;
      CREATE TRIGGER label_count_delete AFTER DELETE ON labels BEGIN
        UPDATE label_count SET labels = labels - 1;
      END;
    `);
  },
};
