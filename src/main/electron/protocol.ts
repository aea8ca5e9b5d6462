import type { Protocol } from 'electron';
import { MEDIA_PATH_PREFIX } from '../../shared/ipc';
import { toFetchResponse, type MediaRequest, type MediaResponse } from '../audio/media';
import { contentSecurityPolicy, rendererHeaders } from '../shell/csp';
import { readStatic } from '../shell/static-files';

/** The renderer's origin: a custom scheme, not file://, so it has an origin and a CSP header. */
export const APP_SCHEME = 'earmark';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** Must run before app is ready: the scheme behaves like https (secure, standard, fetch-able). */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true },
};

/** A label's audio with Range (the core's media route). */
export type MediaLookup = (request: MediaRequest, labelId: string) => Promise<MediaResponse>;

/**
 * Serves the built renderer at earmark://app/…, every response with the CSP header, and
 * label audio at earmark://app/media/<labelId> with Range answered here (from the cache, or
 * streaming into it; net.fetch of file:// would ignore Range). Other hosts, paths that escape the renderer folder, and missing
 * files get 404.
 */
export function createAppProtocolHandler(rendererDir: string, media?: MediaLookup) {
  const csp = contentSecurityPolicy();
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    if (media && url.pathname.startsWith(`/${MEDIA_PATH_PREFIX}`)) {
      const labelId = url.pathname.slice(MEDIA_PATH_PREFIX.length + 1);
      return toFetchResponse(
        await media({ method: request.method, headers: request.headers }, labelId),
      );
    }
    const file = await readStatic(rendererDir, url.pathname);
    if (!file) return new Response('Not found', { status: 404 });
    return new Response(new Uint8Array(file.body), {
      headers: { ...rendererHeaders(csp), 'content-type': file.contentType },
    });
  };
}

export function registerAppProtocol(
  protocol: Protocol,
  rendererDir: string,
  media: MediaLookup,
): void {
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir, media));
}
