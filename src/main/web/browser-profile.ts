import { open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { MEDIA_PATH_PREFIX } from '../../shared/ipc';

/** The browser shell's own Chromium profile, where its app window keeps its state. */
export const browserProfileDir = (dataDir: string) => join(dataDir, 'browser-shell-profile');

/** Chromium's simple cache (its disk cache on Linux): one set of files per entry. */
const CACHE_FOLDER = ['Default', 'Cache', 'Cache_Data'];
/** `<entry hash>_0` (headers and body), `_1` (another stream), `_s` (ranges of a media answer). */
const ENTRY_FILE = /^([0-9a-f]{16})_[01s]$/;
/** Each entry file starts with this magic number, a version, the key's length and hash. */
const ENTRY_MAGIC = 0xfcfb6d1ba7725c30n;
const HEADER_BYTES = 24;
const MAX_KEY_BYTES = 64 * 1024;

/** The cache key an entry file starts with, or undefined when it is not one. */
async function entryKey(path: string): Promise<string | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0);
    if (bytesRead < HEADER_BYTES || header.readBigUInt64LE(0) !== ENTRY_MAGIC) return undefined;
    const length = header.readUInt32LE(12);
    if (length > MAX_KEY_BYTES) return undefined;
    const key = Buffer.alloc(length);
    const read = await handle.read(key, 0, length, HEADER_BYTES);
    return key.subarray(0, read.bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

/** A key ends with the URL it caches ("1/0/_dk_<site> <site> <url>"): is it a shell's media? */
function isShellMedia(key: string): boolean {
  try {
    const url = new URL(key.slice(key.lastIndexOf(' ') + 1));
    return (
      (url.hostname === '127.0.0.1' || url.hostname === 'localhost') &&
      url.pathname.startsWith(`/${MEDIA_PATH_PREFIX}`)
    );
  } catch {
    return false;
  }
}

/**
 * Deletes every recording the shell's Chromium kept in its disk cache (the app window's
 * profile): media is served `no-store`, so only earlier versions' answers (`no-cache`) are there,
 * under any port a launch used. Run when an account is removed, Chromium open or not: an entry
 * whose files are gone is a miss to it. Answers how many entries went.
 */
export async function forgetCachedMedia(profileDir: string): Promise<number> {
  const folder = join(profileDir, ...CACHE_FOLDER);
  const names = await readdir(folder).catch(() => [] as string[]);
  const media = new Set<string>();
  for (const name of names) {
    const entry = ENTRY_FILE.exec(name)?.[1];
    if (!entry || media.has(entry)) continue;
    const key = await entryKey(join(folder, name));
    if (key !== undefined && isShellMedia(key)) media.add(entry);
  }
  await Promise.all(
    names
      .filter((name) => media.has(ENTRY_FILE.exec(name)?.[1] ?? ''))
      .map((name) => rm(join(folder, name), { force: true })),
  );
  return media.size;
}
