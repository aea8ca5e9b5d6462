import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A clinic's internet link between the app and the service, on loopback: a TCP proxy that gives
 * every byte, in each direction, the link's serialization time (bandwidth) and half its round
 * trip (propagation), in order. What it leaves out of a real path — loss, TCP slow start over the
 * far end's window — would slow curl (the baseline) as much as the app. The link can be changed
 * between measurements; connections already open keep the link they were opened on.
 */

export interface LinkShape {
  name: string;
  /** Megabits per second in each direction. */
  megabits: number;
  /** Round trip, milliseconds. */
  rttMs: number;
}

export const CLINIC_LINK: LinkShape = { name: '50 Mbit/s, 40 ms', megabits: 50, rttMs: 40 };
export const SLOW_LINK: LinkShape = { name: '10 Mbit/s, 80 ms', megabits: 10, rttMs: 80 };
export const FAST_LINK: LinkShape = { name: '1 Gbit/s, 1 ms', megabits: 1000, rttMs: 1 };

/**
 * Pipes `from` into `to` through one direction of the link. Chunks wait in one queue, in order,
 * each until its arrival time, behind one timer: a timer per chunk could deliver two chunks out
 * of order (Node dates timers from the event loop's cached clock, not performance.now()), which
 * would corrupt the stream.
 */
function direction(from: Socket, to: Socket, shapeNow: () => LinkShape): void {
  /** When the last byte queued finishes crossing the wire (its serialization done). */
  let wireFreeAt = 0;
  let pending = 0;
  let ended = false;
  const queue: { chunk: Buffer; arrives: number }[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deliver = () => {
    timer = undefined;
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.arrives <= now) {
      const { chunk } = queue.shift()!;
      pending -= chunk.length;
      if (!to.destroyed) to.write(chunk);
    }
    if (pending <= 1024 * 1024) from.resume();
    if (queue.length > 0) {
      timer = setTimeout(deliver, Math.max(0, queue[0]!.arrives - now));
    } else if (ended && !to.destroyed) {
      to.end();
    }
  };
  from.on('data', (chunk: Buffer) => {
    const now = performance.now();
    const shape = shapeNow();
    const bytesPerMs = (shape.megabits * 1e6) / 8 / 1000;
    wireFreeAt = Math.max(wireFreeAt, now) + chunk.length / bytesPerMs;
    queue.push({ chunk, arrives: wireFreeAt + shape.rttMs / 2 });
    pending += chunk.length;
    // A deep buffer would let the sender run ahead of the link: pause it instead.
    if (pending > 4 * 1024 * 1024) from.pause();
    timer ??= setTimeout(deliver, Math.max(0, queue[0]!.arrives - now));
  });
  from.on('end', () => {
    ended = true;
    timer ??= setTimeout(deliver, 0);
  });
}

export interface Link {
  port: number;
  /** The service's base URL through the link. */
  baseUrlOf(serviceBaseUrl: string): string;
  /**
   * Shapes the link from now on: new connections and those already open (an app's pool keeps
   * its connections; shaping only new ones left them at the earlier shape).
   */
  use(shape: LinkShape): void;
  close(): Promise<void>;
}

export async function startLink(targetPort: number, initial: LinkShape): Promise<Link> {
  let shape = initial;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    // The connection itself takes a round trip (the SYN and its answer) before any byte.
    client.pause();
    setTimeout(() => {
      direction(client, upstream, () => shape);
      direction(upstream, client, () => shape);
      client.resume();
    }, shape.rttMs);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrlOf: (serviceBaseUrl) => {
      const url = new URL(serviceBaseUrl);
      url.port = String(port);
      return url.href.replace(/\/$/, '');
    },
    use: (next) => {
      shape = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
