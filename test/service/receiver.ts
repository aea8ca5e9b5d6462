import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceEvent } from '../../src/shared/api';

interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent. */
  body: string;
  event: ServiceEvent;
}

/** What the receiver answers to the n-th delivery (0-based): a status, or 'hang' (no answer). */
export type Answer = (delivery: ReceivedDelivery, index: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  answer: Answer;
  /** Resolves once `count` deliveries have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** A webhook receiver: a real HTTP server on 127.0.0.1 that records every delivery. */
export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const waiters: (() => boolean)[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    answer,
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${received.length} of ${count} deliveries after ${timeoutMs} ms`)),
          timeoutMs,
        );
        const check = () => {
          if (received.length < count) return false;
          clearTimeout(timer);
          resolve(received.slice());
          return true;
        };
        if (!check()) waiters.push(check);
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const delivery = { headers: request.headers, body, event: JSON.parse(body) as ServiceEvent };
      const status = receiver.answer(delivery, received.length);
      received.push(delivery);
      for (const waiter of waiters.splice(0)) if (!waiter()) waiters.push(waiter);
      if (status !== 'hang') response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
