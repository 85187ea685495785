/**
 * The OP Stack preinstalls in a genesis `alloc` (the devnet's): Multicall3, the deterministic
 * deployment proxy `forge script` uses for `new C{salt: …}()`, the Safe singleton factory,
 * Safe v1.3.0 and its MultiSend contracts, Permit2, the ERC-4337 entry points v0.6 and v0.7 with
 * their sender creators, and CreateX — at the addresses every OP Stack chain (Base included)
 * holds them, each with nonce 1 (op-deployer's SetPreinstalls). The create2Deployer is left to
 * the Canyon rules (already in the devnet's alloc, nonce 0, as op-geth installs it).
 */
import { keccak256 } from "../../util/keccak.js";
import { CREATE2_DEPLOYER_ADDRESS } from "./predeploys.js";
import { PERMIT2_ADDRESS, PERMIT2_TEMPLATE_CODE, PREINSTALLS } from "./preinstallCode.js";

/** A preinstall's genesis account. */
interface PreinstallAccount {
  balance: string;
  nonce: string;
  code: string;
}

/** Byte offsets of Permit2's immutables in its runtime code (Preinstalls.sol `getPermit2Code`): the cached chain id … */
const PERMIT2_CHAIN_ID_OFFSET = 6945;
/** … and the cached EIP-712 domain separator. */
const PERMIT2_DOMAIN_SEPARATOR_OFFSET = 6983;
/** A preinstall's nonce: a created contract's (EIP-161), as op-deployer sets it. */
const PREINSTALL_NONCE = "0x1";

function word(v: bigint): Uint8Array {
  return Buffer.from(v.toString(16).padStart(64, "0"), "hex");
}

/**
 * Permit2's runtime code on chain `chainId`: the mainnet deployment with its two immutables
 * rewritten — the chain id and the domain separator keccak256(abi.encode(keccak256("EIP712Domain(string
 * name,uint256 chainId,address verifyingContract)"), keccak256("Permit2"), chainId, Permit2)).
 */
export function permit2Code(chainId: bigint): string {
  const code = Buffer.from(PERMIT2_TEMPLATE_CODE.slice(2), "hex");
  const typeHash = keccak256(Buffer.from("EIP712Domain(string name,uint256 chainId,address verifyingContract)", "latin1"));
  const nameHash = keccak256(Buffer.from("Permit2", "latin1"));
  const domain = keccak256(Buffer.concat([typeHash, nameHash, word(chainId), word(BigInt(PERMIT2_ADDRESS))]));
  code.set(word(chainId), PERMIT2_CHAIN_ID_OFFSET);
  code.set(domain, PERMIT2_DOMAIN_SEPARATOR_OFFSET);
  return "0x" + code.toString("hex");
}

/** The preinstalls as genesis accounts of chain `chainId`, keyed by lowercase address. */
export function preinstallAlloc(chainId: bigint): Record<string, PreinstallAccount> {
  const out: Record<string, PreinstallAccount> = {};
  for (const p of PREINSTALLS) {
    if (p.address.toLowerCase() === CREATE2_DEPLOYER_ADDRESS.toLowerCase()) continue;
    out[p.address.toLowerCase()] = { balance: "0x0", nonce: PREINSTALL_NONCE, code: p.code };
  }
  out[PERMIT2_ADDRESS.toLowerCase()] = { balance: "0x0", nonce: PREINSTALL_NONCE, code: permit2Code(chainId) };
  return out;
}
