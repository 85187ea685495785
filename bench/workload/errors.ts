/**
 * Typed errors of the benchmark workloads (`bench/workload/`) and of the OP devnet benchmark that
 * runs them (`bench/opDevnet.ts`). Block numbers decimal, addresses 0x hex.
 */
import { TypedError } from "../../src/util/errors.js";

/**
 * A {@link WorkloadError}'s code with its metadata: `workload` the workload being run, `block`
 * the sealed block concerned.
 */
type WorkloadErrorType =
  /** No private key derived for a mnemonic account. */
  | { code: "BENCH_WORKLOAD_KEY"; account: number }
  /** The contract assembler met a jump to a label never defined. */
  | { code: "BENCH_ASM_LABEL"; label: string }
  /** The contract assembler was given a PUSH of more than 32 bytes. */
  | { code: "BENCH_ASM_PUSH"; bytes: number }
  /** A swap pool with a reserve that is not positive. */
  | { code: "BENCH_POOL_RESERVES"; reserve0: string; reserve1: string }
  /** A sealed block took none of the pooled transactions. */
  | { code: "BENCH_STALLED"; workload: string; block: string; pooled: number }
  /** The blocks included another number of transactions than were sent. */
  | { code: "BENCH_COUNT"; workload: string; included: number; expected: number }
  /** A sealed block or its receipts are not in the chain. */
  | { code: "BENCH_BLOCK_MISSING"; block: string }
  /** A workload transaction failed. */
  | { code: "BENCH_TX_FAILED"; workload: string; block: string; status: number }
  /** A workload transaction emitted another number of logs than expected. */
  | { code: "BENCH_TX_LOGS"; workload: string; block: string; logs: number; expected: number }
  /** A token's supply or balances differ from the transfers sent. */
  | { code: "BENCH_TOKEN_STATE"; token: string }
  /** A token contract is missing after its deployment. */
  | { code: "BENCH_DEPLOY"; token: string };

/** A benchmark workload that cannot be built, or a run whose blocks are not what the workload sent. */
export class WorkloadError extends TypedError<WorkloadErrorType> {}
