import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExportSummary } from '../../../src/shared/ipc';
import { until } from '../../service/poll';
import * as fx from '../audio/fixtures';
import { ipcCalls } from '../../support/ipc-calls';
import { useClinicBehindProxy } from '../../support/core';

/**
 * An export belongs to the account that started it. Another account becoming active stops it at
 * once (the active account's connection is the one it reads through), and it is resumable when
 * its account is active again — not left to fail recording by recording and call itself complete.
 */
describe('an export when another account becomes active', () => {
  const clinic = useClinicBehindProxy(3, 'earmark-export-switch-');
  const { call } = ipcCalls(() => clinic.core);

  it('stops at once, cancelled, and finishes every recording when resumed under its account', async () => {
    const { svc, proxy, core, labelIds } = clinic;
    const { primary, secondary } = svc.credentials;
    const account = await call('accounts.add', {
      baseUrl: proxy.baseUrl,
      apiKey: primary.apiKey,
    });
    const exportFolder = join(fx.tempFolder('earmark-export-switch-out-'), 'out');
    mkdirSync(exportFolder);
    const { folderId } = await call('export.useFolder', { path: exportFolder });

    // Every recording's details answer only after a long pause.
    const pauseMs = 30_000;
    proxy.inject({ kind: 'delay', ms: pauseMs }, labelIds.length, {
      path: /^\/labels\/[^/]+$/,
    });
    const detailsAsked = () => proxy.seen({ path: /^\/labels\/[^/]+$/ }).length;
    const askedBefore = detailsAsked();
    const exportId = randomUUID();
    const exported = core.rpc.invoke('export.run', {
      exportId,
      folderId,
      labels: { ids: labelIds },
      transcripts: false,
      onExists: 'keep-both',
    });
    await until(detailsAsked, (asked) => asked > askedBefore);

    const switchedAt = Date.now();
    const other = await call('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: secondary.apiKey,
    });
    expect(other.id).not.toBe(account.id);
    const summary = await exported;
    expect(Date.now() - switchedAt).toBeLessThan(pauseMs / 2);
    expect(summary).toMatchObject({ ok: true, value: { status: 'cancelled' } });
    const { rows } = (summary as { value: ExportSummary }).value;
    expect(rows.map((row) => row.status)).toEqual(labelIds.map(() => 'cancelled'));
    // Nothing half-written, and no manifest of a part: the resumed run writes the whole one.
    expect(readdirSync(exportFolder)).toEqual([]);
    // Under the other account it is not offered…
    expect(await call('export.unfinished', {})).toEqual([]);

    // …under its own it is, and resuming it exports every recording.
    proxy.reset();
    await call('accounts.activate', { accountId: account.id });
    const [unfinished] = await call('export.unfinished', {});
    expect(unfinished).toMatchObject({ journalId: exportId, total: labelIds.length, done: 0 });
    const resumed = await call('export.resume', {
      exportId: randomUUID(),
      journalId: exportId,
    });
    expect(resumed.status).toBe('completed');
    expect(resumed.rows.map((row) => [row.labelId, row.status])).toEqual(
      labelIds.map((labelId) => [labelId, 'exported']),
    );
    expect(await call('export.unfinished', {})).toEqual([]);
  }, 90_000);
});
