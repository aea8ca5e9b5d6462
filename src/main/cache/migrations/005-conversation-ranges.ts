import type { Migration } from '../migrate';

/**
 * Conversations keep the range of device audio they cover and the label they became, where the
 * service sends them (the reference service's extension; the seed's conversation has neither):
 * the timeline draws every conversation from them offline too, and the Conversations screen
 * shows when each one was. Null for a service that sends none.
 */
export const migration: Migration = {
  version: 5,
  name: 'conversation ranges',
  up(db) {
    db.exec(`
      ALTER TABLE conversations ADD COLUMN start_ms INTEGER;
      ALTER TABLE conversations ADD COLUMN end_ms INTEGER;
      ALTER TABLE conversations ADD COLUMN label_id TEXT;
      CREATE INDEX conversations_by_device_time ON conversations (device_id, start_ms)
        WHERE start_ms IS NOT NULL;
    `);
  },
};
