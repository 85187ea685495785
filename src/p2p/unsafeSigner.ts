/**
 * The unsafe block signer: the address whose signature a gossip block must carry (specs
 * rollup-node-p2p.md "Block validation"). op-node reads it from L1 (SystemConfig's
 * `unsafeBlockSigner`, its runtime config). basalt starts from the chain's known signer (Base
 * mainnet and Sepolia from the superchain registry, the devnet's own) and, with an L1 RPC and a
 * rollup config, reads SystemConfig's `unsafeBlockSigner()` at start and every
 * {@link P2P_SIGNER_RELOAD_MS}, so a rotation on L1 takes effect without a restart.
 */
import type { Logger } from "pino";
import { keccak256 } from "../util/keccak.js";
import { DEVNET_CHAIN_ID } from "../chain/constants.js";
import { DEVNET_P2P_SEQUENCER_ACCOUNT, P2P_SIGNER_RELOAD_MS } from "./constants.js";
import { devAccounts } from "../chain/devnet.js";
import { fromHex, to0x } from "../util/bytes.js";
import { HttpRpcClient } from "../util/rpcClient.js";

/**
 * Known unsafe block signers by L2 chain id. Base: superchain registry `unsafe_block_signer`,
 * equal to `SystemConfig.unsafeBlockSigner()` on L1 (mainnet SystemConfig
 * 0x73a79Fab69143498Ed3712e519A88a918e1f4072, Sepolia 0xf272670eb55e895584501d564AfEB048bEd26194).
 */
const KNOWN_SIGNERS: ReadonlyMap<bigint, string> = new Map([
  [8453n, "0xAf6E19BE0F9cE7f8afd49a1824851023A8249e8a"],
  [84532n, "0xb830b99c95Ea32300039624Cb567d324D4b1D83C"],
]);

/** The unsafe block signer known for a chain without asking L1 (undefined for unknown chains). */
export function knownUnsafeBlockSigner(chainId: bigint): Uint8Array | undefined {
  if (chainId === DEVNET_CHAIN_ID) return fromHex(devAccounts()[DEVNET_P2P_SEQUENCER_ACCOUNT]!.address);
  const a = KNOWN_SIGNERS.get(chainId);
  return a === undefined ? undefined : fromHex(a);
}

/** The devnet's default gossip signing key (`--p2p.sequencer.key` on the devnet), 0x-hex. */
export function devnetSequencerKey(): string {
  return devAccounts()[DEVNET_P2P_SEQUENCER_ACCOUNT]!.privateKey;
}

/** `unsafeBlockSigner()` selector. */
const UNSAFE_BLOCK_SIGNER_SELECTOR = to0x(keccak256(new TextEncoder().encode("unsafeBlockSigner()")).subarray(0, 4));

/** Reads SystemConfig's `unsafeBlockSigner()` at L1's latest block. */
async function readUnsafeBlockSigner(client: HttpRpcClient, systemConfig: string): Promise<Uint8Array> {
  const out = await client.call<string>("eth_call", [{ to: systemConfig, data: UNSAFE_BLOCK_SIGNER_SELECTOR }, "latest"]);
  const bytes = fromHex(out);
  if (bytes.length !== 32) throw new Error(`SystemConfig ${systemConfig}: unsafeBlockSigner() returned ${bytes.length} bytes, expected a 32-byte word`);
  return bytes.subarray(12);
}

/** Keeps the signer current from L1; calls `onChange` with every new value (and the first). */
export class L1SignerWatcher {
  private timer: NodeJS.Timeout | undefined;
  private last: string | undefined;
  private readonly client: HttpRpcClient;

  constructor(
    l1Rpc: string,
    private readonly systemConfig: string,
    private readonly onChange: (address: Uint8Array) => void,
    private readonly log: Logger,
  ) {
    this.client = new HttpRpcClient(l1Rpc);
  }

  /** Reads once now (errors are logged, the known signer stays), then every reload interval. */
  async start(): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => void this.reload(), P2P_SIGNER_RELOAD_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async reload(): Promise<void> {
    try {
      const signer = await readUnsafeBlockSigner(this.client, this.systemConfig);
      const hex = to0x(signer);
      if (hex !== this.last) {
        this.last = hex;
        this.log.info({ signer: hex, systemConfig: this.systemConfig }, "unsafe block signer read from L1");
        this.onChange(signer);
      }
    } catch (e) {
      this.log.warn({ err: e, systemConfig: this.systemConfig }, "could not read the unsafe block signer from L1; keeping the current one");
    }
  }
}
