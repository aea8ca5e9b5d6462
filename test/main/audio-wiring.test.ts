import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PreparedAudio } from '../../src/shared/ipc';
import { recipeByteLength, type AudioRecipe } from '../../src/service/audio/recipe';
import { cacheKeyEntry, SessionSecretStore } from '../../src/main/accounts/secret-store';
import { AccountKey } from '../../src/main/at-rest/account-key';
import { unsealBytes } from '../../src/main/at-rest/sealed-file';
import { audioFilesOf } from '../../src/main/audio/audio-cache';
import { PartialFile } from '../../src/main/audio/partial-file';
import type { Core } from '../../src/main/core';
import { MediaCapabilities } from '../../src/main/web/media-capability';
import { startWebShell, type WebShell } from '../../src/main/web/server';
import { startService, type RunningService } from '../service/harness';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { testCore } from '../support/core';

vi.mock('electron', () => ({}));
const { createAppProtocolHandler, APP_ORIGIN } = await import('../../src/main/electron/protocol');

/** A label's audio prepared over IPC, then played through each shell's media route with Range. */
let svc: RunningService;
let folder: string;
let core: Core;
let shell: WebShell;
const media = new MediaCapabilities();
/** The test's keychain: it outlives a restart, as the system's does. */
const keychain = new SessionSecretStore();
let labelId: string;
let serviceBytes: Buffer;
const progress: { bytesDone: number; bytesTotal: number | null }[] = [];

beforeAll(async () => {
  svc = await startService();
  const recipe: AudioRecipe = {
    sampleRate: 8000,
    samples: 8000 * 30,
    clips: [['consult-vaccination-00', 8000]],
  };
  labelId = svc.service.labels.create({
    organizationId: svc.credentials.primary.organizationId,
    type: 'ClinicConversation',
    fromMs: Date.now(),
    toMs: Date.now() + 30_000,
    friendlyName: 'iPad',
    deviceSerial: 'X',
    audio: {
      content_type: 'audio/wav',
      byte_length: recipeByteLength(recipe),
      source_kind: 'recipe',
      source: JSON.stringify(recipe),
    },
  });
  serviceBytes = Buffer.from(
    await (
      await svc.call(`/labels/${labelId}/audio`, { key: svc.credentials.primary.apiKey })
    ).arrayBuffer(),
  );

  folder = mkdtempSync(join(tmpdir(), 'earmark-audio-wiring-'));
  mkdirSync(join(folder, 'renderer'));
  writeFileSync(join(folder, 'renderer', 'index.html'), '<!doctype html>');
  core = testCore({ dataDir: join(folder, 'data'), keychain, mediaUrl: media.urlOf });
  core.on('audio.progress', (event) => progress.push(event));
  const added = await core.rpc.invoke('accounts.add', {
    baseUrl: svc.baseUrl,
    apiKey: svc.credentials.primary.apiKey,
  });
  expect(added.ok).toBe(true);
  shell = await startWebShell({ core, media, rendererDir: join(folder, 'renderer') });
});
afterAll(async () => {
  await shell.close();
  await core.close();
  await svc.dispose();
  rmSync(folder, { recursive: true, force: true });
});

describe('audio in the app', () => {
  let prepared: PreparedAudio;

  it('hands the renderer a media address and the waveform, then fills the file with progress', async () => {
    const prepare = async () => {
      const result = await core.rpc.invoke('audio.prepare', { labelId });
      if (!result.ok) throw new Error(result.error.message);
      return result.value as PreparedAudio;
    };
    prepared = await prepare();
    expect(prepared).toMatchObject({
      labelId,
      mediaUrl: media.urlOf(labelId),
      contentType: 'audio/wav',
      bytes: serviceBytes.length,
    });
    // The duration comes from the WAV header, whatever is on disk yet.
    expect(prepared.waveform?.duration).toBeCloseTo(30, 1);
    await vi.waitFor(async () => expect((await prepare()).complete).toBe(true), {
      timeout: 10_000,
    });
    const whole = await prepare();
    expect(whole.buffered).toEqual([[0, serviceBytes.length]]);
    expect(whole.waveform?.peaks[0].some((value) => value > 0)).toBe(true);
    expect(progress.at(-1)).toMatchObject({
      bytesDone: serviceBytes.length,
      buffered: [[0, serviceBytes.length]],
    });
  });

  it('serves it in the browser shell with Range, at the address audio.prepare gave only', async () => {
    const url = new URL(prepared.mediaUrl, shell.url.split('?')[0]).href;
    const ranged = await fetch(url, { headers: { range: 'bytes=1000-1999' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(serviceBytes.subarray(1000, 2000))).toBe(
      true,
    );
    const root = shell.url.split('?')[0]!;
    const bare = new URL(`media/${labelId}`, root).href;
    expect((await fetch(bare, { headers: { range: 'bytes=0-9' } })).status).toBe(401);
    const unknown = new URL(media.urlOf('00000000-0000-4000-8000-000000000000'), root).href;
    expect((await fetch(unknown)).status).toBe(404);
    const traversal = new URL(media.urlOf('..%2f..%2faccounts.json'), root).href;
    expect((await fetch(traversal)).status).toBe(404);
  });

  it('goes on filling, after a restart, a recording left partly cached, once the service answers', async () => {
    const accountId = (await core.rpc.invoke('accounts.list', {})) as {
      ok: true;
      value: { id: string }[];
    };
    const account = accountId.value[0]!.id;
    const audioFolder = join(folder, 'data', 'audio', account);
    const key = AccountKey.from(Buffer.from(keychain.get(cacheKeyEntry(account))!, 'base64'));
    // As a crash could leave it: the first third on disk, flushed, with the state that says so.
    const otherId = svc.service.labels.create({
      organizationId: svc.credentials.primary.organizationId,
      type: 'DictationAudio',
      fromMs: Date.now(),
      toMs: Date.now() + 30_000,
      friendlyName: 'iPad',
      deviceSerial: 'X',
      audio: {
        content_type: 'audio/wav',
        byte_length: serviceBytes.length,
        source_kind: 'recipe',
        source: JSON.stringify({
          sampleRate: 8000,
          samples: 8000 * 30,
          clips: [['consult-vaccination-00', 8000]],
        }),
      },
    });
    const head = await svc.call(`/labels/${otherId}/audio`, {
      key: svc.credentials.primary.apiKey,
    });
    const whole = Buffer.from(await head.arrayBuffer());
    const third = Math.floor(whole.length / 3);
    const files = audioFilesOf(audioFolder, key, otherId);
    const partial = await PartialFile.open(files.partial, otherId, { key });
    await partial.adopt({
      total: whole.length,
      contentType: 'audio/wav',
      etag: head.headers.get('etag'),
      lastModified: null,
    });
    await partial.write(0, whole.subarray(0, third));
    await partial.checkpoint();
    await partial.close();
    const restarted = testCore({ dataDir: join(folder, 'data'), keychain });
    try {
      // Any answer of the service will do; the recording is never opened.
      expect((await restarted.rpc.invoke('devices.list', {})).ok).toBe(true);
      // Published in steps (the file under its final name, then the partial's names removed):
      // waited for as a whole, not from the first.
      await vi.waitFor(
        () => {
          expect(existsSync(files.audio)).toBe(true);
          expect(existsSync(files.partial)).toBe(false);
          expect(existsSync(files.partialState)).toBe(false);
        },
        { timeout: 10_000 },
      );
      expect(unsealBytes(key, readFileSync(files.audio)).equals(whole)).toBe(true);
    } finally {
      await restarted.close();
    }
  });

  it('serves it through the Electron protocol with Range', async () => {
    const handle = createAppProtocolHandler(join(folder, 'renderer'), (request, id) =>
      core.media(request, id),
    );
    const response = await handle(
      new Request(`${APP_ORIGIN}/${prepared.mediaUrl}`, { headers: { range: 'bytes=-100' } }),
    );
    expect(response.status).toBe(206);
    expect(
      Buffer.from(await response.arrayBuffer()).equals(
        serviceBytes.subarray(serviceBytes.length - 100),
      ),
    ).toBe(true);
  });

  it('refuses a cached recording whose chunk changed on disk, never plays it, and fetches it anew', async () => {
    const accounts = await core.rpc.invoke('accounts.list', {});
    const account = (accounts as { ok: true; value: { id: string }[] }).value[0]!.id;
    const key = AccountKey.from(Buffer.from(keychain.get(cacheKeyEntry(account))!, 'base64'));
    const files = audioFilesOf(join(folder, 'data', 'audio', account), key, labelId);
    expect((await core.rpc.invoke('audio.prepare', { labelId })).ok).toBe(true);
    expect(unsealBytes(key, readFileSync(files.audio)).equals(serviceBytes)).toBe(true);
    // A byte of its first chunk changed on disk (a disk's fault, or someone's).
    const sealed = readFileSync(files.audio);
    sealed[64 + 100]! ^= 0x01;
    writeFileSync(files.audio, sealed);

    const refused = await core.media({ method: 'GET', headers: {} }, labelId);
    expect(refused.status).toBe(500);
    const said: Buffer[] = [];
    for await (const chunk of refused.body!) said.push(Buffer.from(chunk as string | Buffer));
    expect(Buffer.concat(said).toString()).toMatch(
      /failed its integrity check, so it was not played/,
    );
    expect(Buffer.concat(said).includes(serviceBytes.subarray(0, 12))).toBe(false);
    // Out of the cache: played again, it comes from the service, whole and right.
    expect(existsSync(files.audio)).toBe(false);
    const again = await core.rpc.invoke('audio.prepare', { labelId });
    expect(again).toMatchObject({ ok: true, value: { complete: false } });
    await vi.waitFor(() => expect(existsSync(files.audio)).toBe(true), { timeout: 10_000 });
    expect(unsealBytes(key, readFileSync(files.audio)).equals(serviceBytes)).toBe(true);
  });
});

describe('audio a service mislabels (issue 26)', () => {
  const page = '<!doctype html><script>fetch("/steal?" + localStorage.length)</script>';
  let proxy: FaultProxy;
  let viaProxy: Core;
  let mislabelled: string;

  beforeAll(async () => {
    proxy = await startFaultProxy(svc.baseUrl);
    mislabelled = svc.service.labels.create({
      organizationId: svc.credentials.primary.organizationId,
      type: 'PhoneCallAudio',
      fromMs: Date.now(),
      toMs: Date.now() + 60_000,
      friendlyName: 'Phone',
      deviceSerial: 'X',
    });
    // "audio/wav, text/html": audio to the app's check, a page to a browser (the last type wins).
    proxy.inject(
      {
        kind: 'status',
        status: 200,
        headers: { 'content-type': 'audio/wav, text/html' },
        body: page,
      },
      50,
      { method: 'GET', path: `/labels/${mislabelled}/audio` },
    );
    viaProxy = testCore({ dataDir: join(folder, 'proxied'), mediaUrl: media.urlOf });
    const added = await viaProxy.rpc.invoke('accounts.add', {
      baseUrl: proxy.baseUrl,
      apiKey: svc.credentials.primary.apiKey,
    });
    expect(added.ok).toBe(true);
  });
  afterAll(async () => {
    await viaProxy.close();
    await proxy.close();
  });

  it('serves it as what its bytes are, sandboxed and unsniffed, in both shells', async () => {
    const prepared = await viaProxy.rpc.invoke('audio.prepare', { labelId: mislabelled });
    expect(prepared.ok).toBe(true);
    const proxiedShell = await startWebShell({
      core: viaProxy,
      media,
      rendererDir: join(folder, 'renderer'),
    });
    try {
      const root = proxiedShell.url.split('?')[0]!;
      const answer = await fetch(new URL(media.urlOf(mislabelled), root));
      expect(await answer.text()).toBe(page);
      expect(answer.headers.get('content-type')).toBe('application/octet-stream');
      expect(answer.headers.get('content-security-policy')).toBe('sandbox');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cache-control')).toBe('no-store');
    } finally {
      await proxiedShell.close();
    }
    const handle = createAppProtocolHandler(join(folder, 'renderer'), (request, id) =>
      viaProxy.media(request, id),
    );
    const electron = await handle(new Request(`${APP_ORIGIN}/media/${mislabelled}`));
    expect(await electron.text()).toBe(page);
    expect(electron.headers.get('content-type')).toBe('application/octet-stream');
    expect(electron.headers.get('content-security-policy')).toBe('sandbox');
    expect(electron.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
