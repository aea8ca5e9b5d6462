import type { Delivery, Webhook } from '../../../shared/api';
import type { EventType } from '../../../shared/api/values';
import type { EarmarkApi, IpcError } from '../../../shared/ipc';

export interface NewWebhook {
  url: string;
  description: string;
  /** The events it gets; undefined for all of them. */
  eventTypes?: EventType[];
}

/**
 * The Webhooks screen's state and calls: the organization's webhooks, the selected one's
 * delivery log, test, enable, delete and create (whose answer is the only time the secret is
 * shown: it is returned to the caller, never kept here).
 */
export class WebhooksStore {
  webhooks = $state.raw<Webhook[]>([]);
  loaded = $state(false);
  loading = $state(false);
  error = $state.raw<IpcError | null>(null);
  selectedId = $state<string | null>(null);
  deliveries = $state.raw<Delivery[] | null>(null);
  deliveriesError = $state.raw<IpcError | null>(null);
  loadingDeliveries = $state(false);
  busy = $state<'test' | 'enable' | 'delete' | 'create' | null>(null);
  actionError = $state.raw<IpcError | null>(null);
  testOutcome = $state<string | null>(null);
  /** The delete of the selected webhook waits for the user's confirmation. */
  confirmingDelete = $state(false);

  constructor(private readonly api: EarmarkApi) {}

  get selected(): Webhook | null {
    return this.webhooks.find((w) => w.id === this.selectedId) ?? null;
  }

  async load(): Promise<void> {
    this.loading = true;
    this.error = null;
    const result = await this.api.invoke('admin.webhooks', {});
    this.loading = false;
    this.loaded = true;
    if (result.ok) this.webhooks = result.value;
    else this.error = result.error;
  }

  select(webhook: Webhook): void {
    if (this.selectedId === webhook.id) return;
    this.selectedId = webhook.id;
    this.deliveries = null;
    this.actionError = null;
    this.testOutcome = null;
    void this.loadDeliveries(webhook.id);
  }

  /** The detail panel closes. */
  deselect(): void {
    this.selectedId = null;
    this.confirmingDelete = false;
  }

  async loadDeliveries(webhookId: string): Promise<void> {
    this.loadingDeliveries = true;
    this.deliveriesError = null;
    const result = await this.api.invoke('admin.deliveries', { webhookId });
    if (webhookId !== this.selectedId) return;
    this.loadingDeliveries = false;
    if (result.ok) this.deliveries = result.value;
    else this.deliveriesError = result.error;
  }

  /** Sends a test ping; then the log and the list (its failure count) are read again. */
  async sendTest(webhook: Webhook): Promise<void> {
    this.busy = 'test';
    this.actionError = null;
    this.testOutcome = null;
    const result = await this.api.invoke('admin.testWebhook', { webhookId: webhook.id });
    this.busy = null;
    if (!result.ok) {
      this.actionError = result.error;
      return;
    }
    this.testOutcome = result.value.success
      ? 'Test ping delivered.'
      : 'The test ping was not delivered; the log below says why. The service retries it.';
    await this.reloadLog(webhook.id);
  }

  /** Reads the webhook's delivery log and the list (its failure count) again. */
  async reloadLog(webhookId: string): Promise<void> {
    await Promise.all([this.loadDeliveries(webhookId), this.refreshList()]);
  }

  async enable(webhook: Webhook): Promise<void> {
    this.busy = 'enable';
    this.actionError = null;
    const result = await this.api.invoke('admin.enableWebhook', { webhookId: webhook.id });
    this.busy = null;
    if (result.ok) this.webhooks = result.value;
    else this.actionError = result.error;
  }

  /** Asks before deleting the selected webhook (the confirmation dialog). */
  askDelete(): void {
    this.confirmingDelete = true;
  }

  cancelDelete(): void {
    this.confirmingDelete = false;
  }

  /** Deletes it; true when it is gone (the confirmation goes with it). */
  async remove(webhook: Webhook): Promise<boolean> {
    this.busy = 'delete';
    this.actionError = null;
    const result = await this.api.invoke('admin.deleteWebhook', { webhookId: webhook.id });
    this.busy = null;
    if (!result.ok) {
      this.actionError = result.error;
      return false;
    }
    this.webhooks = result.value;
    this.selectedId = null;
    this.confirmingDelete = false;
    return true;
  }

  /** Creates one and selects it; the answer carries its secret (shown once), or the error. */
  async create(input: NewWebhook): Promise<{ secret: string; url: string } | IpcError> {
    this.busy = 'create';
    const result = await this.api.invoke('admin.createWebhook', input);
    this.busy = null;
    if (!result.ok) return result.error;
    const { secret, ...webhook } = result.value;
    this.webhooks = [...this.webhooks, webhook];
    this.selectedId = webhook.id;
    this.deliveries = [];
    this.testOutcome = null;
    this.actionError = null;
    return { secret, url: webhook.url };
  }

  private async refreshList(): Promise<void> {
    const result = await this.api.invoke('admin.webhooks', {});
    if (result.ok) this.webhooks = result.value;
  }
}
