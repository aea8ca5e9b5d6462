import { spawnSync } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Mounts a real file system of `bytes` (tmpfs) on an empty folder, so writes there fail with
 * ENOSPC once it is full: a full disk without filling the machine's. Needs the right to mount
 * (root, or CAP_SYS_ADMIN in a container); returns the unmount, or the reason it cannot here.
 */
export function mountSmallDisk(folder: string, bytes: number): (() => Promise<void>) | string {
  const kib = Math.ceil(bytes / 1024);
  const mounted = spawnSync(
    'mount',
    ['-t', 'tmpfs', '-o', `size=${kib}k,mode=0700`, 'tmpfs', folder],
    {
      encoding: 'utf8',
    },
  );
  if (mounted.error) return `cannot mount a small disk here: ${mounted.error.message}`;
  if (mounted.status !== 0) return `cannot mount a small disk here: ${mounted.stderr.trim()}`;
  return async () => {
    // A file the code under test closes a moment after it answered keeps the disk busy: wait
    // for it, but not for ever — one never closed is a leak, and fails the test here.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const unmounted = spawnSync('umount', [folder], { encoding: 'utf8' });
      if (unmounted.status === 0) return;
      if (Date.now() > deadline)
        throw new Error(`the small disk stays busy: ${unmounted.stderr.trim()}`);
      await delay(100);
    }
  };
}
