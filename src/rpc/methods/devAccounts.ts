/**
 * The devnet's unlocked accounts, as anvil, hardhat and `geth --dev` serve theirs: eth_accounts,
 * eth_sendTransaction, eth_signTransaction, eth_sign, personal_sign and eth_signTypedData_v4 with
 * the keys of the devnet's prefunded accounts (the anvil/hardhat mnemonic). Installed on the
 * built-in devnet only, never with `--public` and never on another network: there, eth_accounts
 * answers [] and the others do not exist.
 *
 * eth_sendTransaction fills what the request leaves out as geth's `SetDefaults` does: the nonce
 * from the pending state, the tip from eth_maxPriorityFeePerGas, a fee cap of twice the next
 * base fee plus the tip, the gas from eth_estimateGas on the pending state; type 2 unless a
 * `gasPrice` (type 0, or 1 with an access list) or an `authorizationList` (type 4) asks otherwise.
 */
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { hashTypedData, type TypedData } from "../../chain/eip712.js";
import { toData } from "../../chain/json/index.js";
import type { CallArgs } from "../../execution/callArgs.js";
import { keccak256 } from "../../util/keccak.js";
import type { RpcBackend } from "../backend.js";
import { InvalidParamsError, ServerError } from "../errors.js";
import { parseAddress, parseData } from "../hexParams.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { callMethods } from "./call.js";
import { feeMethods } from "./fees.js";
import { stateMethods } from "./state.js";

/** An unlocked account: its address and 32-byte private key (0x hex). */
interface UnlockedAccount {
  address: string;
  privateKey: string;
}

/** geth's answer for an address it holds no key of (accounts.ErrUnknownAccount). */
class UnknownAccountError extends ServerError {
  constructor() {
    super("unknown account", undefined, "RPC_UNKNOWN_ACCOUNT");
  }
}

/** `r ‖ s ‖ v` with v = 27 + y parity, as eth_sign and personal_sign answer. */
function signDigest(digest: Uint8Array, key: Uint8Array): string {
  const rec = secp256k1.sign(digest, key, { prehash: false, format: "recovered" });
  const out = new Uint8Array(65);
  out.set(rec.subarray(1, 65), 0);
  out[64] = 27 + rec[0]!;
  return toData(out);
}

/** The EIP-191 personal message digest: keccak256("\x19Ethereum Signed Message:\n" ‖ len ‖ message). */
function personalDigest(message: Uint8Array): Uint8Array {
  return keccak256(Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${message.length}`, "utf8"), message]));
}

/** Handlers of the unlocked dev accounts over the node's backend. */
export function devAccountMethods(b: RpcBackend, accounts: readonly UnlockedAccount[]): MethodTable {
  const keys = new Map(accounts.map((a) => [a.address.toLowerCase(), Buffer.from(a.privateKey.slice(2), "hex")]));
  const calls = callMethods(b);
  const fees = feeMethods(b);
  const state = stateMethods(b);
  const keyOf = (address: Uint8Array): Uint8Array => {
    const key = keys.get(toData(address));
    if (key === undefined) throw new UnknownAccountError();
    return key;
  };
  const quantity = async (p: Promise<unknown> | unknown): Promise<bigint> => {
    const v = await p;
    return BigInt(typeof v === "string" ? v : JSON.parse((v as { json: string }).json));
  };

  /** The request, signed with the sender's key: geth's SetDefaults for what it leaves out. */
  const signRequest = async (raw: unknown): Promise<TypedTransaction> => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InvalidParamsError("invalid argument 0: transaction object expected");
    const args: CallArgs = parseCallArgs(raw, 0);
    if (args.from === undefined) throw new InvalidParamsError("invalid argument 0: from (an unlocked account) is required");
    if (args.blobVersionedHashes !== undefined || args.maxFeePerBlobGas !== undefined) throw new InvalidParamsError("invalid argument 0: blob transactions cannot be sent through eth_sendTransaction");
    const key = keyOf(args.from);
    const from = toData(args.from);
    const nonce = args.nonce ?? (await quantity(state.eth_getTransactionCount!([from, "pending"], { transport: "http" })));
    const legacy = args.gasPrice !== undefined && args.authorizationList === undefined;
    let tip = args.maxPriorityFeePerGas;
    let feeCap = args.maxFeePerGas;
    if (!legacy) {
      tip ??= await quantity(fees.eth_maxPriorityFeePerGas!([], { transport: "http" }));
      feeCap ??= tip + 2n * (await quantity(fees.eth_baseFee!([], { transport: "http" })));
    }
    const estimateRequest = { ...(raw as Record<string, unknown>), nonce: `0x${nonce.toString(16)}` };
    const gas = args.gas ?? (await quantity(calls.eth_estimateGas!([estimateRequest, "pending"], { transport: "http" })));
    const head = b.chain.head.header;
    const common = b.chain.commonAt(head.number + 1n, head.timestamp + 1n);
    const base = { chainId: b.chain.chainId, nonce, gasLimit: gas, to: args.to ?? undefined, value: args.value ?? 0n, data: args.data ?? new Uint8Array() };
    const accessList = (args.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]]);
    const data = legacy
      ? args.accessList !== undefined
        ? { ...base, type: 1, gasPrice: args.gasPrice!, accessList }
        : { ...base, type: 0, gasPrice: args.gasPrice! }
      : args.authorizationList !== undefined
        ? { ...base, type: 4, maxFeePerGas: feeCap!, maxPriorityFeePerGas: tip!, accessList, authorizationList: args.authorizationList }
        : { ...base, type: 2, maxFeePerGas: feeCap!, maxPriorityFeePerGas: tip!, accessList };
    return createTx(data as never, { common }).sign(key);
  };

  return {
    /** eth_accounts(): the devnet's unlocked accounts (lowercase, as geth). */
    eth_accounts: (params) => {
      maxParams(params, 0);
      return [...keys.keys()];
    },
    /** eth_sendTransaction(tx): signs with the sender's dev key and submits; the transaction hash. */
    eth_sendTransaction: async (params) => {
      maxParams(params, 1);
      const tx = await signRequest(required(params, 0));
      const raw = tx.serialize();
      if (b.forwarder !== undefined) return b.forwarder.forward(toData(raw));
      return toData((await b.pool.addRaw(raw)).hash);
    },
    /** eth_signTransaction(tx): geth's `{raw, tx}` — the signed envelope and the transaction's hash and fields. */
    eth_signTransaction: async (params) => {
      maxParams(params, 1);
      const tx = await signRequest(required(params, 0));
      return { raw: toData(tx.serialize()), tx: { ...tx.toJSON(), hash: toData(tx.hash()) } };
    },
    /** eth_sign(address, message): the EIP-191 personal-message signature `r ‖ s ‖ v` (v 27/28). */
    eth_sign: (params) => {
      maxParams(params, 2);
      const key = keyOf(parseAddress(required(params, 0), 0));
      return signDigest(personalDigest(parseData(required(params, 1), 1)), key);
    },
    /** personal_sign(message, address): eth_sign with the parameters the other way round (what ethers' signMessage sends). */
    personal_sign: (params) => {
      maxParams(params, 3);
      const key = keyOf(parseAddress(required(params, 1), 1));
      return signDigest(personalDigest(parseData(required(params, 0), 0)), key);
    },
    /** eth_signTypedData_v4(address, typedData): the EIP-712 signature (typed data as an object or its JSON text). */
    eth_signTypedData_v4: (params) => {
      maxParams(params, 2);
      const key = keyOf(parseAddress(required(params, 0), 0));
      let typed = required(params, 1);
      if (typeof typed === "string") {
        try {
          typed = JSON.parse(typed) as unknown;
        } catch {
          throw new InvalidParamsError("invalid argument 1: typed data (JSON) expected");
        }
      }
      const t = typed as TypedData;
      if (typeof t !== "object" || t === null || typeof t.types !== "object" || typeof t.primaryType !== "string" || typeof t.domain !== "object" || typeof t.message !== "object") {
        throw new InvalidParamsError("invalid argument 1: typed data {types, primaryType, domain, message} expected");
      }
      return signDigest(hashTypedData(t), key);
    },
  };
}
