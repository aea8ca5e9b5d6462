import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  EarmarkApi,
  EventName,
  IpcError,
  IpcEvents,
  IpcResult,
} from '../../src/shared/ipc';

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

  constructor() {
    // The connection store asks once, when it is first imported: online unless a test says not.
    this.handle('app.connection', () => ({ state: 'online', lastError: null, checkedAt: null }));
  }

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
 * Installs a fake as window.earmark (what the renderer's bridge takes) and imports a store module
 * fresh, so each test file's stores talk to its own fake.
 */
export async function withFake<T>(
  load: () => Promise<T>,
): Promise<{ fake: FakeEarmark; module: T }> {
  const fake = new FakeEarmark();
  (globalThis as { window?: unknown }).window = { earmark: fake };
  return { fake, module: await load() };
}
