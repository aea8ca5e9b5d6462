import { EVENT_TYPES, type EventType } from '../../../shared/api/values';
import type { IpcError } from '../../../shared/ipc';
import { insecureAddress } from './admin-words';
import { CopyFeedbackStore } from './copy-feedback.svelte';
import type { WebhooksStore } from './webhooks.svelte';

/**
 * The new-webhook form (one per opening): the address, a description and the events it gets;
 * then the creation's answer, the only time its signing secret is shown, with a copy button.
 * The secret is kept here only while the dialog shows it.
 */
export class WebhookFormStore {
  url = $state('');
  description = $state('');
  /** Every event (including ones added later), or only those chosen. */
  scope = $state<'all' | 'some'>('all');
  chosen = $state<EventType[]>([]);
  error = $state.raw<IpcError | null>(null);
  created = $state.raw<{ url: string; secret: string } | null>(null);
  readonly copied = new CopyFeedbackStore();

  constructor(private readonly webhooks: WebhooksStore) {}

  get saving(): boolean {
    return this.webhooks.busy === 'create';
  }

  /** An http(s) address with a host. */
  get validUrl(): boolean {
    return /^https?:\/\/[^\s/]+/i.test(this.url.trim());
  }

  /** The address sends events unencrypted beyond this computer. */
  get insecure(): boolean {
    return insecureAddress(this.url.trim());
  }

  get complete(): boolean {
    return this.validUrl && (this.scope === 'all' || this.chosen.length > 0);
  }

  /** Creates it (the list selects it); true when created, its secret then in `created`. */
  async submit(): Promise<boolean> {
    if (!this.complete || this.saving) return false;
    this.error = null;
    const outcome = await this.webhooks.create({
      url: this.url.trim(),
      description: this.description.trim(),
      // In the order the service lists them, whatever the order they were ticked in.
      ...(this.scope === 'some'
        ? { eventTypes: EVENT_TYPES.filter((type) => this.chosen.includes(type)) }
        : {}),
    });
    if ('kind' in outcome) {
      this.error = outcome;
      return false;
    }
    this.created = outcome;
    return true;
  }

  /** Copies the secret with `write` (the clipboard's); false when it could not be. */
  copySecret(write: (text: string) => Promise<void>): Promise<boolean> {
    const secret = this.created?.secret;
    if (secret === undefined) return Promise.resolve(false);
    return this.copied.copy(
      () => write(secret),
      'Copied to the clipboard.',
      (reason) =>
        `Could not reach the clipboard (${reason}): the secret is selected, copy it with Ctrl+C.`,
    );
  }

  /** The dialog goes: the secret with it. */
  dispose(): void {
    this.created = null;
    this.copied.dispose();
  }
}
