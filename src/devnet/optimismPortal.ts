/**
 * Deposits into the local rollup through its L1 OptimismPortal (src/devnet/contracts/
 * OptimismPortal.sol): the `depositTransaction` calldata and sending it. The portal emits
 * `TransactionDeposited`, which derivation turns into the L2 deposit transaction
 * (chain/op/depositLog.ts `decodeDepositLog`).
 */
import { createContract } from "micro-eth-signer/abi.js";
import { checkAddress, checkUint, invalidArgument } from "./args.js";
import { OPTIMISM_PORTAL_ARTIFACT } from "./contracts/artifacts.js";
import type { L1TxReceipt } from "./l1Receipt.js";
import { withL1Client, type L1Target } from "./l1Client.js";
import { sendL1Transaction, type L1Key, type L1SendOptions } from "./l1Tx.js";

/** Most calldata bytes of one deposit (the portal's `MAX_DEPOSIT_DATA_BYTES`). */
export const MAX_DEPOSIT_DATA_BYTES = 120_000;

/** One deposit, as `depositTransaction` takes it. */
export interface L1Deposit {
  /** L2 recipient (0x hex); omit (or the zero address) for a creation. */
  to?: string;
  /** Wei moved on L2 from the sender to `to`; default 0. */
  value?: bigint;
  /** Wei sent with the L1 transaction and minted to the sender on L2 (`msg.value`); default 0. */
  mint?: bigint;
  /** L2 gas limit (at least 21,000 + 16 per calldata byte, the portal's minimum). */
  gasLimit: bigint;
  /** Whether the deposit creates a contract with `data` as init code; default false. */
  isCreation?: boolean;
  /** L2 calldata or init code; default empty. */
  data?: Uint8Array;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const portal = createContract(OPTIMISM_PORTAL_ARTIFACT.abi);

/**
 * The calldata of `depositTransaction(to, value, gasLimit, isCreation, data)` for `deposit`. Values
 * are checked against their Solidity types; the portal's own checks (creation without a target,
 * minimum gas, calldata size) are left to the portal.
 * @throws DevnetError `DEVNET_INVALID_ARGUMENT` for a value that does not fit its type.
 */
export function depositTransactionCalldata(deposit: L1Deposit): Uint8Array {
  const data = deposit.data ?? new Uint8Array();
  if (!(data instanceof Uint8Array)) invalidArgument("data", data, "bytes (a Uint8Array)");
  return portal.depositTransaction.encodeInput({
    _to: checkAddress("to", deposit.to ?? ZERO_ADDRESS),
    _value: checkUint("value", deposit.value ?? 0n, 256),
    _gasLimit: checkUint("gasLimit", deposit.gasLimit, 64),
    _isCreation: deposit.isCreation ?? false,
    _data: data,
  });
}

/**
 * Deposits into L2 through the OptimismPortal at `portalAddress`: sends `depositTransaction` signed
 * with `key` (with `mint` as the L1 value) and returns the successful L1 receipt, whose
 * `TransactionDeposited` log derivation reads.
 * @throws DevnetError `DEVNET_L1_CALL_REVERTED` when the portal refuses the deposit (its error named),
 *   `DEVNET_L1_TX_REVERTED` (with `l1GasLimit`), `DEVNET_L1_RECEIPT_TIMEOUT`, `DEVNET_INVALID_ARGUMENT`.
 */
export async function sendL1Deposit(l1: L1Target, key: L1Key, portalAddress: string, deposit: L1Deposit, opts: L1SendOptions = {}): Promise<L1TxReceipt> {
  const data = depositTransactionCalldata(deposit);
  const to = checkAddress("portal", portalAddress);
  return withL1Client(l1, (rpc) =>
    sendL1Transaction(
      rpc,
      key,
      { to, data, value: checkUint("mint", deposit.mint ?? 0n, 256), errorAbi: OPTIMISM_PORTAL_ARTIFACT.abi, ...(opts.l1GasLimit !== undefined ? { gasLimit: opts.l1GasLimit } : {}) },
      opts,
    ),
  );
}
