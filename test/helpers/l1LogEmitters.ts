/**
 * Tiny L1 contracts for tests that need an OptimismPortal's or a SystemConfig's logs on a real L1
 * (anvil) without those contracts: raw bytecode that emits, from its own address, the log its
 * calldata describes — the topics as 32-byte words, then the data. A `TransactionDeposited` log
 * (4 topics) comes from {@link LOG4_EMITTER_INIT}, a `ConfigUpdate` log (3 topics) from
 * {@link LOG3_EMITTER_INIT}; build the log with `encodeDepositLog` / `encodeConfigUpdateLog` and
 * call the emitter with {@link emitterCalldata}. {@link L1Wallet} sends the transactions.
 */
import { createCustomCommon, Hardfork, Mainnet, type Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, concatBytes, hexToBytes } from "@ethereumjs/util";
import type { Log } from "../../src/storage/types.js";
import type { JsonRpcClient } from "../../src/util/rpcClient.js";
import { pollUntil } from "./poll.js";

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

/** anvil's first account (its well-known test mnemonic): the key tests send their L1 transactions with. */
export const ANVIL_KEY_0 = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");

/** Sends EIP-1559 transactions to an L1 from one key, counting its nonce locally. */
export class L1Wallet {
  private nonce = 0n;
  private readonly common: Common;

  constructor(
    private readonly rpc: JsonRpcClient,
    private readonly chainId: bigint,
    private readonly key: Uint8Array = ANVIL_KEY_0,
  ) {
    this.common = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Prague });
  }

  /** Sends a transaction (a creation when `to` is undefined) and returns its hash. */
  async send(to: string | undefined, data: Uint8Array): Promise<string> {
    const tx = createFeeMarket1559Tx(
      { chainId: this.chainId, nonce: this.nonce++, maxFeePerGas: 100n * 10n ** 9n, maxPriorityFeePerGas: 10n ** 9n, gasLimit: 300_000n, to: to as `0x${string}` | undefined, data },
      { common: this.common },
    ).sign(this.key);
    return (await this.rpc.call("eth_sendRawTransaction", [bytesToHex(tx.serialize())])) as string;
  }

  /** The receipt of `hash` once mined (polled every 50 ms, for at most `timeoutMs`). */
  async receipt(hash: string, timeoutMs = 15_000): Promise<{ contractAddress: string | null; blockNumber: string; status: string }> {
    return pollUntil(`L1 receipt of ${hash}`, timeoutMs, async () => (await this.rpc.call("eth_getTransactionReceipt", [hash])) ?? undefined, 50) as Promise<{ contractAddress: string; blockNumber: string; status: string }>;
  }

  /**
   * Deploys a {@link LOG4_EMITTER_INIT} (standing for the OptimismPortal) and a
   * {@link LOG3_EMITTER_INIT} (the SystemConfig); `mine` mines a block when the L1 does not mine
   * by itself.
   */
  async deployEmitters(mine: () => Promise<void> = async () => {}): Promise<{ portal: string; systemConfig: string }> {
    const portal = await this.send(undefined, LOG4_EMITTER_INIT);
    const systemConfig = await this.send(undefined, LOG3_EMITTER_INIT);
    await mine();
    return { portal: (await this.receipt(portal)).contractAddress!, systemConfig: (await this.receipt(systemConfig)).contractAddress! };
  }
}
