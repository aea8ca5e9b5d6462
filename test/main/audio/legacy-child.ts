// An audio cache opened sealed on a folder an earlier version left in the clear, in a process of
// its own, for the crash test (legacy-audio.test.ts) to kill -9 while the files are sealed in
// the background. The key is the test's (EARMARK_TEST_CACHE_KEY, base64).
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { AudioCache } from '../../../src/main/audio/audio-cache';

const key = AccountKey.from(Buffer.from(process.env.EARMARK_TEST_CACHE_KEY ?? '', 'base64'));
await AudioCache.open({ folder: process.env.EARMARK_FOLDER ?? '', key });
process.stdout.write(`${JSON.stringify({ event: 'opened' })}\n`);
// Sealing goes on in the background until the test kills the process.
setInterval(() => undefined, 60_000);
