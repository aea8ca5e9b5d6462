import { createHash, randomBytes } from 'node:crypto';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_LINK, startLink, type Link } from './shaped-link';

/** The link the benchmarks and the streaming tests go through must never reorder or drop bytes. */
describe('the shaped link', () => {
  const server = createServer((socket) => socket.pipe(socket)); // an echo server
  let link: Link;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    link = await startLink((server.address() as AddressInfo).port, FAST_LINK);
  });
  afterAll(async () => {
    await link.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('delivers 24 MB written in uneven pieces whole and in order, both ways', async () => {
    const sent = randomBytes(24 * 1024 * 1024);
    const socket = connect(link.port, '127.0.0.1');
    const received: Buffer[] = [];
    let length = 0;
    const done = new Promise<void>((resolve, reject) => {
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        length += chunk.length;
        if (length >= sent.length) resolve();
      });
      socket.on('error', reject);
    });
    // Pieces from 1 byte to 200 KiB, as a server's writes and a kernel's reads come.
    for (let offset = 0, i = 0; offset < sent.length; i++) {
      const size = Math.min(sent.length - offset, [1, 1460, 65_536, 200 * 1024, 7][i % 5]!);
      if (!socket.write(sent.subarray(offset, offset + size))) {
        await new Promise((resolve) => socket.once('drain', resolve));
      }
      offset += size;
    }
    await done;
    socket.destroy();
    const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    expect(length).toBe(sent.length);
    expect(digest(Buffer.concat(received))).toBe(digest(sent));
  }, 60_000);

  it('shapes the connections already open with a shape taken on later', async () => {
    const slow = await startLink((server.address() as AddressInfo).port, FAST_LINK);
    const socket = connect(slow.port, '127.0.0.1');
    const echoed = () =>
      new Promise<number>((resolve) => {
        const sentAt = performance.now();
        socket.once('data', () => resolve(performance.now() - sentAt));
        socket.write('x');
      });
    await echoed(); // open, through the fast link
    slow.use({ name: '300 ms round trips', megabits: 1000, rttMs: 300 });
    // Each way is held half a round trip of the new shape: 300 ms at least there and back.
    expect(await echoed()).toBeGreaterThanOrEqual(300);
    socket.destroy();
    await slow.close();
  });
});
