import type { Protocol } from 'electron';
import { MEDIA_PATH_PREFIX } from '../../shared/ipc';
import { mediaFetchResponse, type MediaFile } from '../audio/media';
import { contentSecurityPolicy, rendererHeaders } from '../csp';
import { readStatic } from '../static-files';

/** The renderer's origin: a custom scheme, not file://, so it has an origin and a CSP header. */
export const APP_SCHEME = 'earmark';
export const APP_HOST = 'app';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** Must run before app is ready: the scheme behaves like https (secure, standard, fetch-able). */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, stream: true },
};

/** Finds a label's downloaded audio (the core's media lookup). */
export type MediaLookup = (labelId: string) => Promise<MediaFile | undefined>;

/**
 * Serves the built renderer at earmark://app/…, every response with the CSP header, and
 * downloaded audio at earmark://app/media/<labelId> with Range answered here (net.fetch of
 * file:// would ignore it). Other hosts, paths that escape the renderer folder, and missing
 * files get 404.
 */
export function createAppProtocolHandler(rendererDir: string, media?: MediaLookup) {
  const csp = contentSecurityPolicy();
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('Not found', { status: 404 });
    if (media && url.pathname.startsWith(`/${MEDIA_PATH_PREFIX}`)) {
      const audio = await media(url.pathname.slice(MEDIA_PATH_PREFIX.length + 1));
      return audio
        ? mediaFetchResponse(request, audio)
        : new Response('Not found', { status: 404 });
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
