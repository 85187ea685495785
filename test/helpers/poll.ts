/** Waiting helpers shared by the tests (every wait is bounded; none measures time). */

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `fn` every `intervalMs` until it returns a value other than undefined; throws after `timeoutMs`, naming `what`. */
export async function pollUntil<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined>, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Polls `cond` every `intervalMs` until it holds; throws after `timeoutMs`, naming `what`. */
export async function waitUntil(what: string, timeoutMs: number, cond: () => boolean | Promise<boolean>, intervalMs = 10): Promise<void> {
  await pollUntil(what, timeoutMs, async () => ((await cond()) ? true : undefined), intervalMs);
}
