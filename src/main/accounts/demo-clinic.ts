import { openSandbox, type Sandbox, type SandboxOptions } from '../../service/sandbox';

/**
 * The demo clinic: the reference service started in-process on loopback with its own data
 * folder, seeded on first use. Started on demand and kept until the app quits.
 */
export class DemoClinic {
  private sandbox: Promise<Sandbox> | undefined;

  constructor(
    private readonly options: Pick<
      SandboxOptions,
      'dataDir' | 'processingMs' | 'resourcesDir' | 'nativeBinding' | 'dialect' | 'credentials'
    >,
  ) {}

  /**
   * Its address, and the primary organization's key where its credentials are kept (the
   * keychain); undefined when they are not (no keychain on an earlier run): the demo account's
   * own key is used then, or a new one (renewKey).
   */
  async start(): Promise<{ baseUrl: string; apiKey: string | undefined }> {
    // The demo is a sandbox: its webhooks may go to a listener on this machine.
    this.sandbox ??= openSandbox({
      ...this.options,
      seed: { kind: 'demo' },
      webhookDestinations: 'any',
    });
    try {
      const { baseUrl, credentials } = await this.sandbox;
      return { baseUrl, apiKey: 'primary' in credentials ? credentials.primary.apiKey : undefined };
    } catch (error) {
      this.sandbox = undefined;
      throw error;
    }
  }

  /**
   * A new key for the demo clinic, when its own was revoked (Settings → API keys can do that)
   * or has expired: the demo recovers in the app, with no folder to delete.
   */
  async renewKey(): Promise<{ baseUrl: string; apiKey: string }> {
    await this.start();
    const sandbox = await this.sandbox!;
    return { baseUrl: sandbox.baseUrl, apiKey: sandbox.renewPrimaryKey() };
  }

  async baseUrl(): Promise<string> {
    return (await this.start()).baseUrl;
  }

  async stop(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    await (await sandbox)?.close();
  }
}
