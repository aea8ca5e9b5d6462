import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AccountKey, ACCOUNT_KEY_BYTES } from '../../../src/main/at-rest/account-key';
import { unsealBytes } from '../../../src/main/at-rest/sealed-file';
import { audioFilesOf, streamPathOf } from '../../../src/main/audio/audio-cache';
import { streamedRanges } from './fixtures';

/**
 * The audio cache as the app keeps it — every file sealed under the account's key, named by an
 * HMAC of the record's id (issue 30) — and in the clear (an earlier version's layout, the
 * benchmarks' baseline): the tests run in both, reading files through these helpers.
 */
export interface CacheMode {
  mode: 'sealed' | 'in the clear';
  key: AccountKey | undefined;
  /** For a child process: the key's bytes (a test's key), in base64, or nothing. */
  keyEnv: Record<string, string>;
  filesDir(folder: string): string;
  indexFile(folder: string): string;
  /** A cached file's bytes as the service sent them (opened when sealed). */
  plain(path: string): Buffer;
  /** A record's whole file's name, and its peaks'. */
  namesOf(labelId: string): [string, string];
  /** A record's partial file, and its state. */
  partialOf(folder: string, labelId: string): string;
  stateOf(partial: string): string;
  /** The ranges a partial file's state lists as on disk. */
  rangesOf(partial: string): [number, number][];
}

function mode(bytes: Buffer | undefined): CacheMode {
  const key = bytes && AccountKey.from(bytes);
  const filesDir = (folder: string) => join(folder, key ? 'store' : 'files');
  const stateOf = (partial: string) => `${partial}${key ? '.state' : '.json'}`;
  return {
    mode: key ? 'sealed' : 'in the clear',
    key,
    keyEnv: bytes ? { EARMARK_TEST_CACHE_KEY: bytes.toString('base64') } : {},
    filesDir,
    indexFile: (folder) => join(folder, key ? 'index.sealed' : 'index.json'),
    plain: (path) => (key ? unsealBytes(key, readFileSync(path)) : readFileSync(path)),
    namesOf(labelId) {
      const name = key ? key.fileName(labelId) : `${labelId}.wav`;
      return [name, `${name}.peaks`];
    },
    partialOf: (folder, labelId) =>
      key ? audioFilesOf(folder, key, labelId).partial : streamPathOf(filesDir(folder), labelId),
    stateOf,
    rangesOf(partial) {
      if (!key) return streamedRanges(partial);
      try {
        const state = key.unseal('download state', readFileSync(stateOf(partial)));
        return (JSON.parse(state.toString('utf8')) as { ranges: [number, number][] }).ranges;
      } catch {
        return [];
      }
    },
  };
}

export const CACHE_MODES: readonly CacheMode[] = [
  mode(randomBytes(ACCOUNT_KEY_BYTES)),
  mode(undefined),
];
