/**
 * L1 traversal (specs derivation.md "L1 Traversal"): derivation reads L1 one block after another
 * from its current origin, and notices a reorganized L1 by the next block's parent hash not being
 * the current block's hash — derivation must then reset to an earlier point.
 */
import { equalsBytes } from "@ethereumjs/util";
import type { L1Block, L1Source } from "./l1Source.js";

/** What advancing gave. */
type TraversalStep =
  /** The next L1 block, now the current one. */
  | { kind: "next"; block: L1Block }
  /** The L1 has no block after the current one yet. */
  | { kind: "head" }
  /** The L1 block after the current one does not build on it: L1 reorganized under derivation. */
  | { kind: "reorg"; current: L1Block; next: L1Block };

/** Walks L1 forward from a starting block, one block per {@link advance}. */
export class L1Traversal {
  constructor(
    private readonly source: L1Source,
    private current: L1Block,
  ) {}

  /** The L1 block derivation is at. */
  get origin(): L1Block {
    return this.current;
  }

  /** Reads the block after the current one (by number) and moves to it if it builds on the current one. */
  async advance(): Promise<TraversalStep> {
    const next = await this.source.blockByNumber(this.current.info.number + 1n);
    if (next === undefined) return { kind: "head" };
    if (!equalsBytes(next.info.parentHash, this.current.info.hash)) return { kind: "reorg", current: this.current, next };
    this.current = next;
    return { kind: "next", block: next };
  }

  /** Moves back to `block` (a reset after a reorg). */
  resetTo(block: L1Block): void {
    this.current = block;
  }
}
