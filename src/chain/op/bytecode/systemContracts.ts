/**
 * Creation code of the two Ethereum system contracts OP chains deploy with upgrade deposits:
 * EIP-4788 beacon block roots (Ecotone) and EIP-2935 block hash history (Isthmus).
 *
 * Both are the init code given in the EIPs, quoted in specs ecotone/derivation.md "Beacon block roots
 * contract deployment (EIP-4788)" and isthmus/derivation.md "EIP-2935 Contract Deployment", and stored as
 * `op-rs/kona@cdb9be24 crates/protocol/hardforks/src/bytecode/eip4788_ecotone.hex` and `eip2935_isthmus.hex`.
 * Each starts with the 9-byte loader `PUSH1 len DUP1 PUSH1 9 PUSH0 CODECOPY PUSH0 RETURN`, so the runtime
 * code is the rest of the bytes.
 * Runtime hashes: EIP-4788 `0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c`,
 * EIP-2935 `0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d` (isthmus/derivation.md).
 */
import { runtimeSlice } from "./runtimeSlice.js";

/** Length of the loader prefix (`60xx8060095f395ff3`) in front of each runtime code. */
const LOADER_LENGTH = 9;
/** EIP-4788 runtime length: the loader's first operand (`PUSH1 0x61`). */
const EIP4788_RUNTIME_LENGTH = 0x61;
/** EIP-2935 runtime length: the loader's first operand (`PUSH1 0x53`). */
const EIP2935_RUNTIME_LENGTH = 0x53;

/** EIP-4788 init code (106 bytes), deployed from `0x0B799C86a49DEeb90402691F1041aa3AF2d3C875` (nonce 0). */
export const EIP4788_CREATION_CODE: string = [
  "0x",
  "60618060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff81069081541460",
  "3c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500",
].join("");

/** EIP-4788 runtime code (97 bytes) at `0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02`. */
export const EIP4788_RUNTIME_CODE: string = runtimeSlice(EIP4788_CREATION_CODE, LOADER_LENGTH, EIP4788_RUNTIME_LENGTH);

/** EIP-2935 init code (92 bytes), deployed from `0x3462413Af4609098e1E27A490f554f260213D685` (nonce 0). */
export const EIP2935_CREATION_CODE: string = [
  "0x",
  "60538060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff8143031160425761",
  "1fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500",
].join("");

/** EIP-2935 runtime code (83 bytes) at `0x0000F90827F1C53a10cb7A02335B175320002935`. */
export const EIP2935_RUNTIME_CODE: string = runtimeSlice(EIP2935_CREATION_CODE, LOADER_LENGTH, EIP2935_RUNTIME_LENGTH);
