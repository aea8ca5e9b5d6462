import type { EventType } from '../../../shared/api';

/** The service's event types (seed §6.1) in the interface's words; the type stays beside them. */
export const EVENT_WORDS: Record<EventType, string> = {
  new_label: 'New recording',
  label_updated: 'Recording updated',
  label_deleted: 'Recording deleted',
  conversation_created: 'Conversation started',
  conversation_completed: 'Conversation processed',
  ping: 'Test ping',
  task_created: 'Follow-up created',
  task_updated: 'Follow-up updated',
  task_comment_added: 'Follow-up comment',
};

export const eventWords = (type: string): string => EVENT_WORDS[type as EventType] ?? type;

/** A webhook address that sends events unencrypted beyond this computer. */
export function insecureAddress(url: string): boolean {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:') return false;
    return !['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  } catch {
    return false;
  }
}

/** Why an administration call was refused, in the user's words (a member's key, a narrow key). */
export function refusalWords(kind: string, what: string): string | null {
  if (kind === 'scope_missing')
    return `${what} are managed by an owner or admin of the clinic, with a key that has full access. This account’s key cannot do it.`;
  return null;
}
