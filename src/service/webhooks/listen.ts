import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DELIVERY_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_SECRET_PREFIX,
  type ServiceEvent,
} from '../../shared/api';
import { verifySignature } from './signature';

/**
 * A small webhook receiver for integrators (`npm run webhook-listen -- --secret whsec_… --port N`):
 * it verifies each delivery's signature over the raw body in constant time (401 when it does not
 * match), answers 204, drops repeated deliveries by X-Service-Delivery (delivery is at least once)
 * and prints each new event as one JSON line on stdout.
 */

const USAGE = `Usage: npm run --silent webhook-listen -- --secret whsec_... [--port N] [--host 127.0.0.1]`;
const MAX_BODY_BYTES = 1024 * 1024;
/** How many delivery ids are remembered for deduplication. */
const REMEMBERED_DELIVERIES = 10_000;

export interface WebhookListenerOptions {
  secret: string;
  port: number;
  host?: string;
  /** Each verified event, once. */
  onEvent: (event: ServiceEvent) => void;
  /** Diagnostics: refused and duplicate deliveries. */
  onNotice?: (message: string) => void;
}

export interface WebhookListener {
  server: Server;
  url: string;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_BODY_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', reject);
  });
}

export async function startWebhookListener(
  options: WebhookListenerOptions,
): Promise<WebhookListener> {
  const seen = new Set<string>();
  const notice = options.onNotice ?? (() => {});
  const server = createServer((request, response) => {
    const answer = (status: number, text = '') =>
      response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    if (request.method !== 'POST') return answer(405, 'POST only\n');
    readBody(request).then(
      (body) => {
        if (body === undefined) return answer(413, 'body too large\n');
        const signature = request.headers[SIGNATURE_HEADER];
        if (
          !verifySignature(
            options.secret,
            body,
            typeof signature === 'string' ? signature : undefined,
          )
        ) {
          notice(`Refused a delivery with a bad or missing ${SIGNATURE_HEADER}.`);
          return answer(401, 'invalid signature\n');
        }
        let event: ServiceEvent;
        try {
          event = JSON.parse(body.toString('utf8')) as ServiceEvent;
        } catch {
          return answer(400, 'body is not JSON\n');
        }
        const header = request.headers[DELIVERY_HEADER];
        const deliveryId = typeof header === 'string' ? header : event.id;
        if (seen.has(deliveryId)) {
          notice(`Duplicate delivery ${deliveryId} ignored.`);
          return answer(204);
        }
        seen.add(deliveryId);
        if (seen.size > REMEMBERED_DELIVERIES) seen.delete(seen.values().next().value!);
        options.onEvent(event);
        return answer(204);
      },
      () => answer(400, 'could not read the body\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://${address}:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      secret: { type: 'string' },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
    strict: true,
  });
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n\n${USAGE}\n`);
    process.exit(2);
  };
  const secret = values.secret ?? fail('--secret is required (the whsec_… secret of the webhook).');
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX))
    fail(`--secret must start with ${WEBHOOK_SECRET_PREFIX}.`);
  if (!/^\d+$/.test(values.port)) fail(`--port must be a whole number, not "${values.port}".`);
  const listener = await startWebhookListener({
    secret,
    port: Number(values.port),
    host: values.host,
    onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
    onNotice: (message) => process.stderr.write(`${message}\n`),
  });
  process.stderr.write(`Listening for webhook deliveries on ${listener.url}\n`);
  const stop = () => void listener.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
}
