import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { inspect } from 'node:util';

/**
 * An account's key: 32 random bytes kept in the OS keychain beside the account's API key, never
 * on disk or in a log. Everything Earmark keeps of the account on this computer is sealed under
 * keys derived from it (HKDF-SHA-256, one purpose each), so destroying it makes all of that
 * unreadable at once (crypto-shredding): the cache database's page key, the names of the audio
 * files, each sealed file's own key and the small sealed records (an index, a download's state).
 */

export const ACCOUNT_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The data a sealed file's key is made from: its own random id (see sealed-file.ts). */
export const FILE_ID_BYTES = 16;

/** A purpose's key: HKDF-SHA-256 of the account key, salted (a file's id) where given. */
const derive = (secret: KeyObject, purpose: string, salt: Uint8Array = new Uint8Array(0)) =>
  Buffer.from(hkdfSync('sha256', secret, salt, `earmark ${purpose}`, 32));

/**
 * The key of an account kept for the session only (no keychain, by the user's choice): derived
 * from its API key, which the user gives again at each start, and its id (random per computer),
 * since there is nowhere to keep a random one between runs.
 */
export const sessionAccountKey = (apiKey: string, accountId: string): Buffer =>
  Buffer.from(
    hkdfSync('sha256', apiKey, accountId, 'earmark session account key v1', ACCOUNT_KEY_BYTES),
  );

/** A sealed record that did not open: another key, or bytes changed on disk. */
export class SealedDataError extends Error {
  override readonly name = 'SealedDataError';
}

export class AccountKey {
  private readonly secret: KeyObject;
  private readonly names: Buffer;
  private readonly records: Buffer;
  private readonly files: KeyObject;

  private constructor(bytes: Buffer) {
    this.secret = createSecretKey(bytes);
    this.names = derive(this.secret, 'file names v1');
    this.records = derive(this.secret, 'sealed records v1');
    this.files = createSecretKey(derive(this.secret, 'sealed files v1'));
  }

  /** The key from its 32 bytes (as the keychain holds them). */
  static from(bytes: Buffer): AccountKey {
    if (bytes.length !== ACCOUNT_KEY_BYTES)
      throw new RangeError(`an account key is ${ACCOUNT_KEY_BYTES} bytes`);
    return new AccountKey(bytes);
  }

  /** A new random key. */
  static random(): { key: AccountKey; bytes: Buffer } {
    const bytes = randomBytes(ACCOUNT_KEY_BYTES);
    return { key: new AccountKey(bytes), bytes };
  }

  /**
   * The cache database's key, in the form SQLite3 Multiple Ciphers takes a raw key (no
   * passphrase stretching: it is random already): `x'<64 hex digits>'`, for `PRAGMA key`.
   */
  databaseKey(): string {
    return `x'${derive(this.secret, 'cache database v1').toString('hex')}'`;
  }

  /**
   * The name of a record's files in the audio cache: an HMAC of its id, so a name tells nothing of
   * the record (its id, patient or time), and only this key finds a record's files.
   */
  fileName(labelId: string): string {
    return createHmac('sha256', this.names).update(labelId, 'utf8').digest('hex');
  }

  /** The key of one sealed file, from its random id: no two files share a key. */
  fileKey(fileId: Uint8Array): Buffer {
    return derive(this.files, 'sealed file v1', fileId);
  }

  /** Seals a small record (AES-256-GCM, a random nonce) for one purpose (its AAD). */
  seal(purpose: string, plain: Uint8Array): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.records, nonce);
    cipher.setAAD(Buffer.from(purpose, 'utf8'));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]);
  }

  /** Opens what `seal` made for the same purpose; SealedDataError when it does not open. */
  unseal(purpose: string, sealed: Uint8Array): Buffer {
    if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new SealedDataError('too short');
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length);
    try {
      const decipher = createDecipheriv(
        'aes-256-gcm',
        this.records,
        bytes.subarray(0, NONCE_BYTES),
      );
      decipher.setAAD(Buffer.from(purpose, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch (error) {
      throw new SealedDataError(`a sealed ${purpose} did not open`, { cause: error });
    }
  }

  /**
   * What tells this key from another without revealing anything of it (an HMAC of a constant):
   * kept beside the cache, so a key that is not the one the data was sealed with is told apart
   * from damaged data.
   */
  check(): string {
    return derive(this.secret, 'key check v1').subarray(0, 16).toString('hex');
  }

  /** Never printed: a key that reaches a log by mistake shows as this. */
  [inspect.custom](): string {
    return 'AccountKey [redacted]';
  }

  toJSON(): string {
    return 'AccountKey [redacted]';
  }
}
