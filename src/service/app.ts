import Fastify, { type FastifyInstance } from 'fastify';
import type { Note } from '../shared/api';
import { fileURLToPath } from 'node:url';
import { ClipBank } from './audio/clip-bank';
import { openServiceDatabase, type ServiceDatabase } from './db/database';
import { HubStore } from './db/hub-store';
import { IdentityStore } from './db/identity-store';
import { LabelStore } from './db/label-store';
import { TaskStore } from './db/task-store';
import { WebhookStore } from './db/webhook-store';
import { EventLog } from './events/event-log';
import { ConversationService } from './hub/conversations';
import { GeneratedMinutes } from './hub/generated-minutes';
import { installAuthentication } from './http/auth';
import type { ServiceContext } from './http/context';
import { ProblemError, sendProblem, toProblemError } from './http/problems';
import {
  DEFAULT_RATE_LIMIT,
  installRateLimit,
  RateLimiter,
  type RateLimit,
} from './http/rate-limit';
import { installFieldDialect } from './dialect/field';
import type { WebhookDestinations } from './webhooks/destinations';
import { apiKeyRoutes } from './routes/api-keys';
import { authRoutes } from './routes/auth';
import { conversationRoutes } from './routes/conversations';
import { deviceRoutes } from './routes/devices';
import { labelRoutes } from './routes/labels';
import { sandboxRoutes } from './routes/sandbox';
import { regenerateNote } from './sandbox/regenerate';
import { taskRoutes } from './routes/tasks';
import { webhookRoutes } from './routes/webhooks';
import { TaskService } from './tasks/task-service';
import {
  DEFAULT_WEBHOOK_BACKOFF_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  WebhookDispatcher,
} from './webhooks/dispatcher';

export const API_PREFIX = '/api';
export const DEFAULT_PROCESSING_MS = 4000;
export const DEFAULT_RESOURCES_DIR = fileURLToPath(new URL('../../resources', import.meta.url));

export interface ServiceOptions {
  /** Folder of the SQLite database (created if missing). */
  dataDir: string;
  /** How long complete takes to reach a terminal state. */
  processingMs?: number;
  /** The clock; tests move it. */
  now?: () => number;
  /** Folder holding demo-speech/ (the clips label audio is assembled from). */
  resourcesDir?: string;
  /** The SQLite addon (better-sqlite3-multiple-ciphers) to load instead of the default (Electron's ABI build). */
  nativeBinding?: string;
  /** Requests each API key (or session) may make; a token bucket per caller. */
  rateLimit?: RateLimit;
  /** The wait before each webhook retry (five of them in the seed). */
  webhookBackoffMs?: readonly number[];
  /** How long a webhook receiver has to answer. */
  webhookTimeoutMs?: number;
  /**
   * Conversations carry their range and label, and the list filters by time (the default);
   * false sends exactly the seed's fields, as a service without these extensions would.
   */
  conversationRanges?: boolean;
  /**
   * 'seed' (the default): the seed's letter. 'field': as the real service behaves where public
   * integrations found it differs (src/service/dialect/field.ts, docs/reference-service.md).
   */
  dialect?: ServiceDialect;
  /**
   * Where webhooks may go: 'public' (the default) only to public addresses; 'any' also to this
   * machine and the local network — the sandbox's (demo clinic, tests, `--allow-local-webhooks`).
   */
  webhookDestinations?: WebhookDestinations;
  logger?: boolean;
}

export type ServiceDialect = 'seed' | 'field';

export interface ClinicService extends ServiceContext {
  app: FastifyInstance;
  /** Every route the service answers (method and URL pattern), e.g. to check each for isolation. */
  routes: readonly { method: string; url: string; public: boolean }[];
  /**
   * Deletes a label and logs label_deleted. The seed has no delete endpoint (the portal deletes
   * records); tests and sandbox tools call this.
   */
  deleteLabel(labelId: string): void;
  /**
   * Appends a new version of a record's note (a revision of the current one without `content`)
   * and logs label_updated: the regeneration the real service does, for the demo and the tests
   * (also `POST /sandbox/labels/{id}/notes` in the seed dialect).
   */
  regenerateNote(labelId: string, type: string, content?: string): Note;
  close(): Promise<void>;
}

/** Parses JSON bodies; an empty body is no body, so body-less POSTs (complete) accept it. */
function parseJsonBody(
  _request: unknown,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
) {
  if (body.trim() === '') return done(null, undefined);
  try {
    done(null, JSON.parse(body));
  } catch (error) {
    done(
      new ProblemError(
        400,
        'malformed_json',
        'Malformed JSON',
        `The request body is not valid JSON: ${(error as Error).message}`,
      ),
    );
  }
}

/** Builds the reference clinic service: a Fastify app over one SQLite database. Does not listen. */
export function createService(options: ServiceOptions): ClinicService {
  const now = options.now ?? Date.now;
  const db: ServiceDatabase = openServiceDatabase(options.dataDir, options.nativeBinding);
  const resourcesDir = options.resourcesDir ?? DEFAULT_RESOURCES_DIR;
  const clips = new ClipBank(resourcesDir);
  const hub = new HubStore(db, new GeneratedMinutes(db, clips, now));
  const labels = new LabelStore(db);
  const events = new EventLog(db, now);
  const taskStore = new TaskStore(db);
  const webhookStore = new WebhookStore(db);
  const dispatcher = new WebhookDispatcher({
    db,
    store: webhookStore,
    events,
    now,
    backoffMs: options.webhookBackoffMs ?? DEFAULT_WEBHOOK_BACKOFF_MS,
    timeoutMs: options.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    destinations: options.webhookDestinations ?? 'public',
  });
  events.onAppend(() => dispatcher.wake());
  const context: ServiceContext = {
    db,
    identity: new IdentityStore(db, now),
    labels,
    hub,
    events,
    conversations: new ConversationService({
      db,
      hub,
      labels,
      events,
      now,
      processingMs: options.processingMs ?? DEFAULT_PROCESSING_MS,
    }),
    taskStore,
    tasks: new TaskService({ db, store: taskStore, events, now }),
    webhookStore,
    dispatcher,
    clips,
    resourcesDir,
    now,
    conversationRanges: options.conversationRanges ?? true,
    webhookDestinations: options.webhookDestinations ?? 'public',
  };

  const app = Fastify({
    logger: options.logger ?? false,
    // Close idle keep-alive and never-used connections too, so close() cannot hang on a client
    // that opened a socket and said nothing (or paused an audio download).
    forceCloseConnections: true,
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
        // Type lists (OneOfTypes) keep null and numbers in bodies from being coerced.
        allowUnionTypes: true,
      },
    },
  });
  app.removeAllContentTypeParsers(); // JSON only: any other body type is a 415
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblemError(error as Parameters<typeof toProblemError>[0]);
    if (problem.status >= 500) request.log.error(error);
    return sendProblem(request, reply, problem);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      request,
      reply,
      new ProblemError(
        404,
        'not_found',
        'Not found',
        `No such path: ${request.method} ${request.url.split('?')[0]}.`,
      ),
    ),
  );

  const routes: { method: string; url: string; public: boolean }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD')
        routes.push({ method, url: route.url, public: route.config?.public === true });
    }
  });
  app.register(
    async (api) => {
      installAuthentication(api, context.identity, now);
      installRateLimit(api, new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, now));
      if (options.dialect === 'field') installFieldDialect(api, API_PREFIX);
      for (const routes of [
        authRoutes,
        deviceRoutes,
        labelRoutes,
        conversationRoutes,
        taskRoutes,
        apiKeyRoutes,
        webhookRoutes,
        // The sandbox's controls are not the seed's API; the field dialect has none.
        ...(options.dialect === 'field' ? [] : [sandboxRoutes]),
      ])
        routes(api, context);
    },
    { prefix: API_PREFIX },
  );

  context.conversations.schedule();
  dispatcher.start();

  return {
    ...context,
    app,
    routes,
    deleteLabel(labelId) {
      db.transaction(() => {
        const organizationId = labels.organizationOf(labelId);
        if (organizationId === undefined) return;
        labels.delete(labelId);
        events.append(organizationId, 'label_deleted', { labelId });
      })();
    },
    regenerateNote: (labelId, type, content) => regenerateNote(context, labelId, type, content),
    async close() {
      context.conversations.stop();
      await dispatcher.stop(); // before the database closes: abandoned attempts go back in the queue
      await app.close();
      db.close();
    },
  };
}
