/**
 * Tiny L1 contracts for tests that need an OptimismPortal's or a SystemConfig's logs on a real L1
 * (anvil) without those contracts: raw bytecode that emits, from its own address, the log its
 * calldata describes — the topics as 32-byte words, then the data. A `TransactionDeposited` log
 * (4 topics) comes from {@link LOG4_EMITTER_INIT}, a `ConfigUpdate` log (3 topics) from
 * {@link LOG3_EMITTER_INIT}; build the log with `encodeDepositLog` / `encodeConfigUpdateLog` and
 * call the emitter with {@link emitterCalldata}.
 */
import { concatBytes, hexToBytes } from "@ethereumjs/util";
import type { Log } from "../../src/storage/types.js";

/** Creation code from its copier and runtime parts (hex without 0x). */
const hex = (copier: string, runtime: string): Uint8Array => hexToBytes(`0x${copier}${runtime}`);

/**
 * Creation code of the 4-topic emitter. Runtime (27 bytes):
 * `len = CALLDATASIZE − 128; CALLDATACOPY(0, 128, len); LOG4(0, len, cd[0], cd[32], cd[64], cd[96]); STOP`
 * as `60 80 36 03 80 60 80 60 00 37 60 60 35 60 40 35 60 20 35 60 00 35 84 60 00 a4 00`, behind the
 * usual 12-byte copier `CODECOPY(0, 12, 27); RETURN(0, 27)`.
 */
export const LOG4_EMITTER_INIT = hex("601b600c600039601b6000f3", "60803603806080600037606035604035602035600035846000a400");

/**
 * Creation code of the 3-topic emitter. Runtime (24 bytes):
 * `len = CALLDATASIZE − 96; CALLDATACOPY(0, 96, len); LOG3(0, len, cd[0], cd[32], cd[64]); STOP`
 * as `60 60 36 03 80 60 60 60 00 37 60 40 35 60 20 35 60 00 35 83 60 00 a3 00`.
 */
export const LOG3_EMITTER_INIT = hex("6018600c60003960186000f3", "60603603806060600037604035602035600035836000a300");

/** The calldata that makes an emitter emit `log` (its topics, then its data); the emitter must match the topic count. */
export function emitterCalldata(log: Pick<Log, "topics" | "data">): Uint8Array {
  return concatBytes(...log.topics, log.data);
}
