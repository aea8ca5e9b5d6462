import Database from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { all, get, run, statement, upsert, type Db } from '../../src/node-common/sql';

describe('src/node-common/sql', () => {
  let db: Db;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('CREATE TABLE pets (id TEXT PRIMARY KEY, name TEXT NOT NULL, visits INTEGER NOT NULL)');
  });
  afterEach(() => db.close());

  it('prepares each SQL text once per connection', () => {
    const other = new Database(':memory:');
    const prepared = statement(db, 'SELECT ? + 1 AS next');
    expect(statement(db, 'SELECT ? + 1 AS next')).toBe(prepared);
    expect(prepared.get(1)).toEqual({ next: 2 });
    expect(prepared.get(41)).toEqual({ next: 42 });
    const elsewhere = statement(other, 'SELECT ? + 1 AS next');
    expect(elsewhere).not.toBe(prepared);
    expect(elsewhere.database).toBe(other);
    other.close();
  });

  it('runs, reads rows and upserts every other column', () => {
    const save = upsert('pets', 'id', { id: '@id', name: '@name', visits: '@visits' });
    expect(run(db, save, { id: 'p1', name: 'Maple', visits: 1 })).toBe(1);
    run(db, save, { id: 'p2', name: 'Bramble', visits: 2 });
    run(db, save, { id: 'p1', name: 'Maple', visits: 3 });
    expect(get<{ visits: number }>(db, 'SELECT visits FROM pets WHERE id = ?', 'p1')).toEqual({
      visits: 3,
    });
    expect(get(db, 'SELECT * FROM pets WHERE id = ?', 'none')).toBeUndefined();
    expect(all<{ name: string }>(db, 'SELECT name FROM pets ORDER BY name')).toEqual([
      { name: 'Bramble' },
      { name: 'Maple' },
    ]);
  });
});
