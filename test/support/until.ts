/**
 * Polling for what another process does (a child's output, a row a worker writes): short steps,
 * a hard deadline, and a message naming what never came. Within one process tests use the
 * controlled clock instead.
 */
export async function untilValue<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  stepMs = 20,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** Polls until `condition` holds. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string, stepMs = 20): Promise<void> {
  await untilValue(async () => ((await condition()) ? true : undefined), timeoutMs, what, stepMs);
}
