/**
 * Things that must be shut down together, in the reverse of the order they were added: what was
 * added later may use what was added before it (an export uses the caches, the caches the
 * client), so it goes first. Each close runs once, one at a time; a failure does not keep the
 * others from closing (the first one is thrown once all have run). Closing twice waits for the
 * first closing.
 */
export class Closables {
  private readonly closes: { name: string; close: () => Promise<void> | void }[] = [];
  private closing: Promise<void> | undefined;

  /** Adds a close; `name` says what failed to close. */
  add(name: string, close: () => Promise<void> | void): void {
    if (this.closing) throw new Error(`${name} was opened after its owner closed`);
    this.closes.push({ name, close });
  }

  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    let failure: Error | undefined;
    for (const { name, close } of [...this.closes].reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= new Error(
          `${name} did not close: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
    if (failure) throw failure;
  }
}
