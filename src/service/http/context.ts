import type { WebhookDestinations } from '../webhooks/destinations';
import type { FastifyInstance } from 'fastify';
import type { ClipBank } from '../audio/clip-bank';
import type { ServiceDatabase } from '../db/database';
import type { HubStore } from '../db/hub-store';
import type { IdentityStore } from '../db/identity-store';
import type { LabelStore } from '../db/label-store';
import type { TaskStore } from '../db/task-store';
import type { WebhookStore } from '../db/webhook-store';
import type { EventLog } from '../events/event-log';
import type { ConversationService } from '../hub/conversations';
import type { TaskService } from '../tasks/task-service';
import type { WebhookDispatcher } from '../webhooks/dispatcher';

/** What every route plugin is given. */
export interface ServiceContext {
  db: ServiceDatabase;
  identity: IdentityStore;
  labels: LabelStore;
  hub: HubStore;
  events: EventLog;
  conversations: ConversationService;
  taskStore: TaskStore;
  tasks: TaskService;
  webhookStore: WebhookStore;
  dispatcher: WebhookDispatcher;
  clips: ClipBank;
  resourcesDir: string;
  now: () => number;
  /** Where webhooks may be delivered (src/service/webhooks/destinations.ts). */
  webhookDestinations: WebhookDestinations;
  /** Conversations carry their range and label, and the list filters by time (the reference's extensions). */
  conversationRanges: boolean;
}

/** A route module: registers its routes of one seed section on `app`. */
export type RouteModule = (app: FastifyInstance, context: ServiceContext) => void;
