/**
 * One block operation at a time: the devnet producers (the OP devnet sequencer, the devnet-l1
 * producer) run their timer steps, `evm_mine` and head changes through a {@link SerialQueue}, so
 * no two of them build on the same head.
 */

/** Runs asynchronous operations one after another, in the order they were queued. */
export class SerialQueue {
  /** Settles when the last operation queued has (its failure is its caller's). */
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every operation queued before it; resolves or rejects with `fn`'s result. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every operation queued so far has settled. */
  idle(): Promise<void> {
    return this.tail;
  }
}
