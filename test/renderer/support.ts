import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  EarmarkApi,
  EventName,
  IpcError,
  IpcEvents,
  IpcResult,
  Sourced,
} from '../../src/shared/ipc';
import type { AccountSummary } from '../../src/shared/ipc';

type Handler<C extends ChannelName> = (
  input: ChannelInput<C>,
) => ChannelOutput<C> | Promise<ChannelOutput<C>>;

/**
 * A typed fake of the IPC API the renderer's stores call (window.earmark): each channel answered
 * by a handler the test gives (typed by the contract), events pushed by the test, and every call
 * recorded. An unhandled channel fails loudly, so a store's unexpected call shows.
 */
export class FakeEarmark implements EarmarkApi {
  readonly calls: { channel: ChannelName; input: unknown }[] = [];
  private readonly handlers = new Map<ChannelName, Handler<never>>();
  private readonly failures = new Map<ChannelName, IpcError>();
  private readonly answers = new Map<ChannelName, (input: never) => Promise<IpcResult<unknown>>>();
  private readonly listeners = new Map<EventName, Set<(payload: never) => void>>();

  handle<C extends ChannelName>(channel: C, handler: Handler<C>): this {
    this.failures.delete(channel);
    this.answers.delete(channel);
    this.handlers.set(channel, handler as unknown as Handler<never>);
    return this;
  }

  /**
   * The channel answers whatever result this gives, value or error, each call (e.g. the cache's
   * rows for one source, an error for the other), until handled again.
   */
  answer<C extends ChannelName>(
    channel: C,
    answer: (input: ChannelInput<C>) => Promise<IpcResult<ChannelOutput<C>>>,
  ): this {
    this.failures.delete(channel);
    this.answers.set(channel, answer as never);
    return this;
  }

  /** The channel answers this error (as main's router would) until handled again. */
  fail(channel: ChannelName, error: IpcError): this {
    this.answers.delete(channel);
    this.failures.set(channel, error);
    return this;
  }

  emit<E extends EventName>(event: E, payload: IpcEvents[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      (listener as (p: IpcEvents[E]) => void)(payload);
    }
  }

  callsOf<C extends ChannelName>(channel: C): ChannelInput<C>[] {
    return this.calls.filter((c) => c.channel === channel).map((c) => c.input as ChannelInput<C>);
  }

  async invoke<C extends ChannelName>(
    channel: C,
    input: ChannelInput<C>,
  ): Promise<IpcResult<ChannelOutput<C>>> {
    this.calls.push({ channel, input });
    await Promise.resolve();
    const answer = this.answers.get(channel);
    if (answer) return answer(input as never) as Promise<IpcResult<ChannelOutput<C>>>;
    const failure = this.failures.get(channel);
    if (failure) return { ok: false, error: failure };
    const handler = this.handlers.get(channel) as Handler<C> | undefined;
    if (!handler) throw new Error(`The fake has no handler for ${channel}`);
    return { ok: true, value: await handler(input) };
  }

  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    set.add(listener as (payload: never) => void);
    this.listeners.set(event, set);
    return () => set.delete(listener as (payload: never) => void);
  }
}

/**
 * Lets every answer the fake has given reach its store: the fake answers after a microtask, and a
 * store may chain a few calls, each answered the same way; a handful of macrotask turns lets the
 * longest chain in these stores finish. For answers a test holds back (to cross them), release
 * them first, then settle.
 */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** A read's answer as main's offline policy gives it: the value, where it came from, and when. */
export const sourced = <T>(
  value: T,
  source: 'service' | 'cache' = 'service',
  fetchedAt: string | null = '2026-11-24T08:00:00.000Z',
): Sourced<T> => ({ value, source, fetchedAt });

/** An account as main lists it (active, its key in the keychain), with `extra` over it. */
export const account = (baseUrl: string, extra: Partial<AccountSummary> = {}): AccountSummary => ({
  id: 'a-1',
  baseUrl,
  organizationId: 'org-1',
  organizationName: 'Riverside',
  email: 'vet@example.com',
  entitlements: null,
  allowedFeatures: [],
  keyId: null,
  keyName: null,
  keyPrefix: null,
  expiresAt: null,
  keyStorage: 'keychain',
  demo: false,
  hasKey: true,
  active: true,
  ...extra,
});
