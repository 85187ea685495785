/**
 * Ctrl-C (SIGINT) or SIGTERM as a stop request for a long offline command (`basalt db migrate`,
 * `basalt db reindex-logs`): the work polls the flag and stops after the batch it is writing, so
 * running the command again continues where it stopped.
 */

/**
 * Runs `work` with `stopRequested`, which turns true on the first SIGINT or SIGTERM while `work`
 * runs; the signal handlers are removed once it settles.
 */
export async function withStopSignal<T>(work: (stopRequested: () => boolean) => Promise<T>): Promise<T> {
  let stop = false;
  const interrupt = (): void => {
    stop = true;
  };
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    return await work(() => stop);
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}
