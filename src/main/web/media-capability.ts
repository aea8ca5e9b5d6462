import { createHmac, randomBytes } from 'node:crypto';
import { MEDIA_PATH_PREFIX } from '../../shared/ipc';
import { sameSecret } from './same-secret';

/** The query parameter that carries a media URL's capability. */
export const CAPABILITY_PARAM = 'cap';

/**
 * Capabilities for the browser shell's media route. An <audio> element cannot send the session
 * token in a header, and the token must not ride in a URL (or a cookie, which every server on
 * 127.0.0.1 would receive, whatever its port): each label's media URL instead carries an HMAC of
 * that label's id under a key made for this launch. It opens that one label's audio, for as long
 * as this process runs, and nothing else.
 */
export class MediaCapabilities {
  private readonly key = randomBytes(32);

  private capabilityOf(labelId: string): string {
    return createHmac('sha256', this.key).update(labelId).digest('base64url');
  }

  /** The page-relative URL that plays `labelId` (what audio.prepare hands the renderer). */
  readonly urlOf = (labelId: string): string =>
    `${MEDIA_PATH_PREFIX}${labelId}?${CAPABILITY_PARAM}=${this.capabilityOf(labelId)}`;

  /** Whether `offered` is this launch's capability for `labelId`. */
  allows(labelId: string, offered: string | null): boolean {
    return offered !== null && sameSecret(offered, this.capabilityOf(labelId));
  }
}
