import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Core } from '../../src/main/core';
import { AppError } from '../../src/main/base/errors';
import { connectService } from '../../src/main/service-client/connect';
import { MediaCapabilities } from '../../src/main/web/media-capability';
import { startWebShell, type WebShell } from '../../src/main/web/server';
import {
  CHANNEL_NAMES,
  IPC_CHANNELS,
  IPC_ERROR_KINDS,
  SHELL_RPC_PROTOCOL,
  SHELL_TOKEN_PROTOCOL_PREFIX,
  type ChannelName,
} from '../../src/shared/ipc';
import { startService, type RunningService } from '../service/harness';
import { arbitraryOf } from '../support/schema-arbitrary';
import { testCore } from '../support/core';

/**
 * Every IPC channel fed inputs its schema accepts — chosen to be as unkind as it allows — through
 * the browser shell's WebSocket, as a page would send them, to a core with a real account on a
 * real service: past validation, into the handlers. Each answer is a value or an error the UI
 * can explain (never `internal`, which means a handler threw what it did not expect), and the
 * shell keeps serving. Nothing leaves 127.0.0.1: the core makes clients for loopback only.
 */
const SKIPPED: Partial<Record<ChannelName, string>> = {
  'accounts.openDemo': 'takes no input, and starts a whole demo clinic (tested in e2e)',
  'export.useFolder': 'writes into the folder the input names (export tests use a temp folder)',
  'export.run': 'writes into the chosen folder (export tests)',
  'export.resume': 'writes into the chosen folder (export tests)',
  'admin.createWebhook': 'the service would resolve and call the random host',
  'admin.testWebhook': 'the service would call the webhook’s host',
};
const RUNS_PER_CHANNEL = 15;

let svc: RunningService;
let dataDir: string;
let core: Core;
let shell: WebShell;
let ws: WebSocket;
let nextId = 1;

const call = (channel: string, input: unknown) =>
  new Promise<{ ok: boolean; error?: { kind: string; message: string } }>((resolve, reject) => {
    const id = nextId++;
    const onMessage = (data: WebSocket.RawData) => {
      const answer = JSON.parse(String(data)) as { id?: number; result?: never };
      if (answer.id !== id) return;
      ws.off('message', onMessage);
      ws.off('close', onClose);
      resolve(answer.result!);
    };
    const onClose = (code: number) => reject(new Error(`the shell closed the socket (${code})`));
    ws.on('message', onMessage);
    ws.once('close', onClose);
    ws.send(JSON.stringify({ id, channel, input }));
  });

beforeAll(async () => {
  svc = await startService();
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-fuzz-shell-'));
  const rendererDir = join(dataDir, 'renderer');
  mkdirSync(rendererDir);
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html>');
  const media = new MediaCapabilities();
  core = testCore({
    dataDir: join(dataDir, 'data'),
    version: 'fuzz',
    exportFolder: join(dataDir, 'exports'),
    mediaUrl: media.urlOf,
    connect: (baseUrl, apiKey) => {
      if (new URL(baseUrl).hostname !== '127.0.0.1')
        throw new AppError('offline', 'Only this machine in this test.');
      return connectService(baseUrl, apiKey);
    },
  });
  const added = await core.rpc.invoke('accounts.add', {
    baseUrl: svc.baseUrl,
    apiKey: svc.credentials.primary.apiKey,
    sessionOnly: true,
  });
  if (!added.ok) throw new Error(added.error.message);
  shell = await startWebShell({ core, media, rendererDir });
  const token = new URL(shell.url).searchParams.get('token')!;
  ws = new WebSocket(
    `ws://127.0.0.1:${shell.port}/rpc`,
    [SHELL_RPC_PROTOCOL, `${SHELL_TOKEN_PROTOCOL_PREFIX}${token}`],
    { headers: { origin: `http://127.0.0.1:${shell.port}` } },
  );
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
}, 60_000);
afterAll(async () => {
  ws?.close();
  await shell?.close();
  await core?.close();
  await svc?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('IPC through the browser shell, with a real account (issue 19)', () => {
  const fuzzed = CHANNEL_NAMES.filter((channel) => !(channel in SKIPPED));

  it.each(fuzzed)(
    '%s answers every input its schema accepts with a value or an explained error',
    async (channel) => {
      const accepts = TypeCompiler.Compile(IPC_CHANNELS[channel].input);
      await fc.assert(
        fc.asyncProperty(arbitraryOf(IPC_CHANNELS[channel].input as never), async (input) => {
          fc.pre(accepts.Check(input));
          const result = await call(channel, input);
          if (result.ok) return;
          expect(IPC_ERROR_KINDS).toContain(result.error!.kind);
          expect(result.error!.kind, result.error!.message).not.toBe('internal');
          expect(result.error!.message.length).toBeGreaterThan(0);
        }),
        { numRuns: RUNS_PER_CHANNEL },
      );
      expect(await call('app.info', {})).toMatchObject({ ok: true });
    },
    60_000,
  );
});
