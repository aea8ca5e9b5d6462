// The digest thread started ahead of use, as an account's scope starts it at launch, and never
// used, in a process of its own: the process must exit by itself (digest.test.ts).
import { startDigestThread } from '../../../src/main/audio/digest';

startDigestThread();
process.stdout.write(`${JSON.stringify({ started: true })}\n`);
