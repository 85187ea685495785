/**
 * System calls of Ethereum blocks.
 *
 * - The pre-block system calls whose only effect is a storage write by a system contract:
 *   EIP-4788 (beacon block root, Cancun / OP Ecotone) and EIP-2935 (parent block hash,
 *   Prague / OP Isthmus). The contracts' code does exactly these writes when called by the
 *   system address, so writing the slots directly gives the same state (as @ethereumjs's
 *   runBlock does). Nothing happens while the contract has no code (e.g. before an OP chain's
 *   upgrade transaction deploys it), as in geth and reth.
 * - The end-of-block request calls of Prague on Ethereum (EIP-7002 withdrawal requests, EIP-7251
 *   consolidation requests): @ethereumjs's runBlock / buildBlock make them, and
 *   {@link watchRequestSystemCalls} enforces the rule it leaves out: a request contract without
 *   code, or a call to it that fails, makes the block invalid. OP chains have no
 *   execution-layer requests (Isthmus adopts Prague without them) and do not use this.
 */
import type { VM } from "@ethereumjs/vm";
import { Address, bigIntToBytes, hexToBytes, setLengthLeft } from "@ethereumjs/util";
import { TypedError } from "../util/errors.js";
import { CONSOLIDATION_REQUEST_CONTRACT, WITHDRAWAL_REQUEST_CONTRACT } from "../chain/requestContracts.js";

/** EIP-4788 beacon roots contract. */
const BEACON_ROOTS_CONTRACT = "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02";
/** EIP-4788 `HISTORY_BUFFER_LENGTH`. */
const BEACON_ROOTS_BUFFER = 8191n;
/** EIP-2935 history storage contract. */
const HISTORY_STORAGE_CONTRACT = "0x0000F90827F1C53a10cb7A02335B175320002935";
/** EIP-2935 `HISTORY_SERVE_WINDOW`. */
const HISTORY_SERVE_WINDOW = 8191n;

/** The state operations the system calls need. */
interface SystemCallState {
  getCode(address: Address): Promise<Uint8Array>;
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>;
}

const slot = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32);

/** EIP-4788: stores `timestamp` and the parent beacon block root in the ring buffer. */
export async function applyBeaconRootCall(state: SystemCallState, timestamp: bigint, parentBeaconBlockRoot: Uint8Array): Promise<void> {
  const addr = new Address(hexToBytes(BEACON_ROOTS_CONTRACT));
  if ((await state.getCode(addr)).length === 0) return;
  const i = timestamp % BEACON_ROOTS_BUFFER;
  await state.putStorage(addr, slot(i), bigIntToBytes(timestamp));
  await state.putStorage(addr, slot(i + BEACON_ROOTS_BUFFER), parentBeaconBlockRoot);
}

/** EIP-2935: stores the parent hash of block `number` at slot `(number - 1) % 8191`. */
export async function applyHistoryStorageCall(state: SystemCallState, number: bigint, parentHash: Uint8Array): Promise<void> {
  if (number === 0n) return;
  const addr = new Address(hexToBytes(HISTORY_STORAGE_CONTRACT));
  if ((await state.getCode(addr)).length === 0) return;
  await state.putStorage(addr, slot((number - 1n) % HISTORY_SERVE_WINDOW), parentHash);
}

/** `SYSTEM_ADDRESS` of EIP-4788 / EIP-7002 / EIP-7251: the caller of every system call. */
const SYSTEM_ADDRESS = "0xfffffffffffffffffffffffffffffffffffffffe";

/** The end-of-block request contracts: the EIP that adds each (the Common activates it from Prague) and its address. */
const REQUEST_CONTRACTS: ReadonlyArray<{ eip: 7002 | 7251; address: string }> = [
  { eip: 7002, address: WITHDRAWAL_REQUEST_CONTRACT },
  { eip: 7251, address: CONSOLIDATION_REQUEST_CONTRACT },
];

/** Codes and details of {@link SystemCallError}. */
type SystemCallErrorType =
  /** No code at the request contract's address (EIP-7002/7251: the block is invalid). */
  | { code: "SYSTEM_CONTRACT_EMPTY"; eip: number; contract: string }
  /** The system call to the request contract reverted or halted (`reason`: the EVM's error). */
  | { code: "SYSTEM_CONTRACT_CALL_FAILED"; eip: number; contract: string; reason: string };

/** A block whose EIP-7002 / EIP-7251 request system call cannot be made or fails: the block is invalid. */
export class SystemCallError extends TypedError<SystemCallErrorType> {}

/** The request-contract checks of one block execution ({@link watchRequestSystemCalls}). */
interface RequestSystemCallWatch {
  /**
   * The first failed request system call seen so far, if any (a failed call's output may
   * also break the block's requests hash: this names the cause).
   */
  failure(): SystemCallError | undefined;
  /**
   * After the block ran: throws {@link SystemCallError} when a request contract of an active EIP has
   * no code or its system call failed.
   */
  check(): Promise<void>;
}

/**
 * Watches the EIP-7002 / EIP-7251 system calls of the block `vm` runs next (`vm` is used for that
 * one block, as the chain's executor and block builder do): @ethereumjs makes the calls at the end
 * of the block but reads a missing contract, or a failed call, as an empty request list. EIP-7002
 * and EIP-7251 (and geth's `processRequestsSystemCall`, reth's `SystemCallError`) make such a block
 * invalid; {@link RequestSystemCallWatch.check} enforces it. The calls are recognized as calls from
 * {@link SYSTEM_ADDRESS} (no transaction can have that sender) to a request contract.
 */
export function watchRequestSystemCalls(vm: VM): RequestSystemCallWatch {
  const evm = vm.evm;
  const runCall = evm.runCall.bind(evm);
  const contracts = new Map(REQUEST_CONTRACTS.map((c) => [c.address.toLowerCase(), c]));
  let failed: SystemCallError | undefined;
  evm.runCall = async (opts) => {
    const result = await runCall(opts);
    const error = result.execResult.exceptionError;
    if (error !== undefined && failed === undefined && opts.caller?.toString() === SYSTEM_ADDRESS && opts.to !== undefined) {
      const c = contracts.get(opts.to.toString());
      if (c !== undefined) {
        const reason = String(error.error);
        failed = new SystemCallError(
          { code: "SYSTEM_CONTRACT_CALL_FAILED", eip: c.eip, contract: c.address, reason },
          `the EIP-${c.eip} system call to ${c.address} failed (${reason}); a request contract call must succeed`,
        );
      }
    }
    return result;
  };
  return {
    failure: () => failed,
    async check(): Promise<void> {
      for (const c of REQUEST_CONTRACTS) {
        if (!vm.common.isActivatedEIP(c.eip)) continue;
        const code = await vm.stateManager.getCode(new Address(hexToBytes(c.address as `0x${string}`)));
        if (code.length === 0) {
          throw new SystemCallError(
            { code: "SYSTEM_CONTRACT_EMPTY", eip: c.eip, contract: c.address },
            `the EIP-${c.eip} request contract ${c.address} has no code; it must be deployed from Prague on`,
          );
        }
      }
      if (failed !== undefined) throw failed;
    },
  };
}
