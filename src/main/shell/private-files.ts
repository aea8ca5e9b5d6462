/**
 * Clinical data stays private on disk: every file and folder this process creates — the account's
 * cache with its WAL, the audio cache, export journals, the embedded demo clinic's database,
 * exported files — is readable by this user only (0600 files, 0700 folders), whatever the user's
 * umask. Set once, first thing, by each entry point (both shells and the service's CLI).
 */
export function keepFilesPrivate(): void {
  process.umask(0o077);
}
