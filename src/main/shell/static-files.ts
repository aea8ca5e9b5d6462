import { readFile } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/**
 * Resolves a URL path inside the renderer folder, or undefined when it would escape it
 * (`..`, encoded slashes, absolute paths, NUL bytes). Both shells serve files through this.
 */
function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '');
  const base = resolve(root);
  const target = resolve(base, relative);
  return target === base || target.startsWith(base + sep) ? target : undefined;
}

/** Reads a renderer file: its bytes and content type, or undefined if missing. */
export async function readStatic(
  root: string,
  urlPath: string,
): Promise<{ body: Buffer; contentType: string } | undefined> {
  const path = resolveInside(root, urlPath);
  if (!path) return undefined;
  try {
    return {
      body: await readFile(path),
      contentType: CONTENT_TYPES[extname(path)] ?? 'application/octet-stream',
    };
  } catch {
    return undefined;
  }
}
