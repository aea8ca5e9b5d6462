/**
 * A shell's last line of defence: an error no caller caught (an 'error' event nobody listens
 * to, a rejected promise nobody awaits) is logged with its stack and the process goes on serving,
 * instead of taking the core, the demo clinic and any sync or export down with it. Every known
 * path catches its own errors (tests fail on any that escapes); this guards the unknown ones.
 */
export function guardProcess(log: (message: string) => void): () => void {
  const report = (what: string) => (error: unknown) =>
    log(
      `Earmark kept running after ${what}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
  const uncaught = report('an uncaught error');
  const unhandled = report('an unhandled rejection');
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', unhandled);
  return () => {
    process.off('uncaughtException', uncaught);
    process.off('unhandledRejection', unhandled);
  };
}
