import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_NAMES, IPC_CHANNELS } from '../../src/shared/ipc';
import type { Core } from '../../src/main/core';
import { AppError } from '../../src/main/base/errors';
import { testCore } from '../support/core';

/**
 * Every IPC channel fed random and malformed payloads: a typed error each time, never a throw,
 * never a change to what main keeps on disk. No input here ever reaches the network: the client
 * factory refuses to be made.
 */
let dataDir: string;
let core: Core;
const snapshot = () =>
  readdirSync(dataDir)
    .sort()
    .map((name) => `${name}:${readFileSync(join(dataDir, name), 'utf8')}`)
    .join('\n');

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-fuzz-'));
  core = testCore({
    dataDir,
    version: 'fuzz',
    connect: () => {
      throw new AppError('offline', 'No network in this test.');
    },
  });
});
afterAll(async () => {
  await core.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const TYPED_ERROR_KINDS = new Set(['invalid_input', 'unknown_channel']);

describe('IPC under random input', () => {
  it.each(CHANNEL_NAMES)(
    '%s answers every malformed input with a typed error and changes nothing',
    async (channel) => {
      const accepts = TypeCompiler.Compile(IPC_CHANNELS[channel].input);
      const before = snapshot();
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.anything(), fc.object(), fc.jsonValue()), async (input) => {
          fc.pre(!accepts.Check(input));
          const result = await core.rpc.invoke(channel, input);
          expect(result.ok).toBe(false);
          if (!result.ok) {
            expect(TYPED_ERROR_KINDS).toContain(result.error.kind);
            expect(result.error.message.length).toBeGreaterThan(0);
          }
        }),
        { numRuns: 150 },
      );
      expect(snapshot()).toBe(before);
    },
  );

  it('refuses every channel name outside the contract', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.anything()),
        fc.anything(),
        async (channel, input) => {
          fc.pre(!(CHANNEL_NAMES as unknown[]).includes(channel));
          const result = await core.rpc.invoke(channel, input);
          expect(result).toMatchObject({ ok: false, error: { kind: 'unknown_channel' } });
        },
      ),
      { numRuns: 500 },
    );
  });
});
