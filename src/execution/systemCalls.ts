/**
 * The pre-block system calls whose only effect is a storage write by a system contract:
 * EIP-4788 (beacon block root, Cancun / OP Ecotone) and EIP-2935 (parent block hash,
 * Prague / OP Isthmus). The contracts' code does exactly these writes when called by the
 * system address, so writing the slots directly gives the same state (as @ethereumjs's
 * runBlock does). Nothing happens while the contract has no code (e.g. before an OP chain's
 * upgrade transaction deploys it), as in geth and reth.
 */
import { Address, bigIntToBytes, hexToBytes, setLengthLeft } from "@ethereumjs/util";

/** EIP-4788 beacon roots contract. */
export const BEACON_ROOTS_CONTRACT = "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02";
/** EIP-4788 `HISTORY_BUFFER_LENGTH`. */
const BEACON_ROOTS_BUFFER = 8191n;
/** EIP-2935 history storage contract. */
export const HISTORY_STORAGE_CONTRACT = "0x0000F90827F1C53a10cb7A02335B175320002935";
/** EIP-2935 `HISTORY_SERVE_WINDOW`. */
const HISTORY_SERVE_WINDOW = 8191n;

/** The state operations the system calls need. */
export interface SystemCallState {
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
