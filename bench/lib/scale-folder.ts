// Builds or extends a scale seed's data folder in a process of its own (its memory and CPU are not
// the benchmark's), for bench/lib/service.ts. Prints one JSON line: {"ms", "records"}.
//
//   tsx bench/lib/scale-folder.ts seed DIR N [WITHHELD_DAYS]   the folder seeded with scale:N
//   tsx bench/lib/scale-folder.ts append DIR                   its first withheld day added
import { ClipBank } from '../../src/service/audio/clip-bank';
import { DEFAULT_RESOURCES_DIR } from '../../src/service/app';
import { openServiceDatabase } from '../../src/service/db/database';
import { HubStore } from '../../src/service/db/hub-store';
import { LabelStore } from '../../src/service/db/label-store';
import { appendWithheldDay } from '../../src/service/demo/scale-seed';
import { GeneratedMinutes } from '../../src/service/hub/generated-minutes';
import { openSandbox } from '../../src/service/sandbox';

async function main(): Promise<void> {
  const [command, dataDir, count, withheld] = process.argv.slice(2);
  if (!dataDir) throw new Error('usage: scale-folder.ts seed DIR N [WITHHELD_DAYS] | append DIR');
  const started = performance.now();
  let records: number;
  if (command === 'seed') {
    records = Number(count);
    const sandbox = await openSandbox({
      dataDir,
      seed: { kind: 'scale', count: records, withheldDays: Number(withheld ?? 0) },
    });
    await sandbox.close();
  } else if (command === 'append') {
    // The stores alone, on a connection of their own: the service may be running on the folder.
    const db = openServiceDatabase(dataDir);
    const clips = new ClipBank(DEFAULT_RESOURCES_DIR);
    try {
      records = appendWithheldDay({
        db,
        clips,
        labels: new LabelStore(db),
        hub: new HubStore(db, new GeneratedMinutes(db, clips, Date.now)),
      });
    } finally {
      db.close();
    }
  } else {
    throw new Error(`unknown command ${command}`);
  }
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, records })}\n`);
}

await main();
