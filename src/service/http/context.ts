import type { FastifyInstance } from 'fastify';
import type { ClipBank } from '../audio/clip-bank';
import type { ServiceDatabase } from '../db/database';
import type { HubStore } from '../db/hub-store';
import type { IdentityStore } from '../db/identity-store';
import type { LabelStore } from '../db/label-store';
import type { EventLog } from '../events/event-log';
import type { ConversationService } from '../hub/conversations';

/** What every route plugin is given. */
export interface ServiceContext {
  db: ServiceDatabase;
  identity: IdentityStore;
  labels: LabelStore;
  hub: HubStore;
  events: EventLog;
  conversations: ConversationService;
  clips: ClipBank;
  resourcesDir: string;
  now: () => number;
}

/** A route module: registers its routes of one seed section on `app`. */
export type RouteModule = (app: FastifyInstance, context: ServiceContext) => void;
