/** A recording's entry in the cache's index (sealed with it when the cache is). */
export interface AudioIndexEntry {
  /** The record's name in the cache (sealed: an HMAC of its id; in the clear: its id). */
  name: string;
  /**
   * The record's id (in the sealed index only, when sealed). Null for a sealed file adopted
   * after a crash came before its index entry was written: learnt at its first use (its name
   * cannot be turned back into the id).
   */
  labelId: string | null;
  file: string;
  peaksFile: string | null;
  contentType: string;
  bytes: number;
  diskBytes: number;
  lastUsedAt: number;
}
