/**
 * The execution-layer network of a node from its options (`--port`, `--discovery.*`,
 * `--rollup.discovery.v4`, `--bootnodes`, `--trusted-peers`, `--max-*-peers`,
 * `--p2p-secret-key`, `--nat`, `--txpool.gossip`, `--p2p.el.disable`), wired to the node's
 * transaction pool: transactions from peers go into the pool, and with gossip on the pool's new
 * transactions are announced and served. Undefined with `--p2p.el.disable`.
 *
 * Discovery as Base's node runs it (base/base node.rs `BaseDiscoveryConfig`): on OP chains (Base
 * mainnet and Sepolia, the devnet, custom OP chains) discv5 under protocol id `basev0` on
 * `--discovery.v5.port`, and discovery v4 only with `--rollup.discovery.v4`; on plain Ethereum
 * chains discovery v4 only, as before. `--disable-discovery` turns both off.
 */
import { join } from "node:path";
import type { Logger } from "pino";
import type { Chain } from "../../blockchain/chain.js";
import { DEPOSIT_TX_TYPE } from "../../chain/op/depositTx.js";
import { P2P_EL_SECRET_FILE } from "../../config/constants.js";
import type { BasaltOptions } from "../../config/options.js";
import type { TxPool } from "../../txpool/txpool.js";
import { parseNodeRecord } from "../cl/enrText.js";
import { builtinDiscv4Bootnodes, builtinDiscv5Bootnodes } from "./bootnodes.js";
import { BASE_PROTOCOL_ID } from "./discv5Packet.js";
import { parseEnode } from "./enode.js";
import { DevP2PService } from "./service.js";
import { P2POptionError } from "./errors.js";

/** Transaction types a pool takes: legacy, 2930, 1559, 7702; blob transactions on plain Ethereum chains only; never deposits. */
function poolTypes(chain: Chain): number[] {
  const types = [0, 1, 2, 4];
  if (chain.op === undefined) types.push(3);
  return types.filter((t) => t !== DEPOSIT_TX_TYPE);
}

function enodeList(flag: string, value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const list = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const e of list) {
    try {
      parseEnode(e);
    } catch (err) {
      throw new P2POptionError(`--${flag}`, e, `--${flag}: ${(err as Error).message}`);
    }
  }
  return list;
}

/** `--bootnodes`: enode URLs (both discoveries) or `enr:` records (discv5 only), each checked. */
function bootnodeList(value: string | undefined): { discv4: string[]; discv5: string[] } | undefined {
  if (value === undefined) return undefined;
  const list = value.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const b of list) {
    try {
      if (b.startsWith("enr:")) parseNodeRecord(b);
      else parseEnode(b);
    } catch (err) {
      throw new P2POptionError("--bootnodes", b, `--bootnodes: ${(err as Error).message}`);
    }
  }
  return { discv4: list.filter((b) => !b.startsWith("enr:")), discv5: list };
}

/** The external IP of `--nat extip:<ip>`. */
function extIp(nat: string | undefined): string | undefined {
  if (nat === undefined) return undefined;
  const m = /^extip:(.+)$/.exec(nat);
  if (m === null) throw new P2POptionError("--nat", nat, `--nat ${nat}: expected extip:<ip>`);
  return m[1];
}

/** Builds the service (not started) and connects it to `pool`; undefined with `--p2p.el.disable`. */
export function devp2pFromOptions(opts: BasaltOptions, chain: Chain, pool: TxPool, clientId: string, log: Logger): DevP2PService | undefined {
  if (opts["p2p.el.disable"]) return undefined;
  const discovery = !opts["disable-discovery"];
  const opChain = chain.op !== undefined;
  const bootnodes = bootnodeList(opts.bootnodes);
  const service = new DevP2PService(
    chain,
    {
      datadir: opts.datadir,
      secretKeyPath: opts["p2p-secret-key"] ?? join(opts.datadir, P2P_EL_SECRET_FILE),
      clientId,
      addr: opts.addr,
      port: opts.port,
      discoveryAddr: opts["discovery.addr"],
      discv4: discovery && (!opChain || opts["rollup.discovery.v4"]),
      discoveryPort: opts["discovery.port"],
      discv5: discovery && opChain,
      discv5Port: opts["discovery.v5.port"],
      discv5ProtocolId: BASE_PROTOCOL_ID,
      externalIp: extIp(opts.nat),
      discv4Bootnodes: bootnodes?.discv4 ?? [...builtinDiscv4Bootnodes(chain.chainId)],
      discv5Bootnodes: bootnodes?.discv5 ?? [...builtinDiscv5Bootnodes(chain.chainId)],
      trustedPeers: enodeList("trusted-peers", opts["trusted-peers"]) ?? [],
      maxInbound: opts["max-inbound-peers"],
      maxOutbound: opts["max-outbound-peers"],
      txGossip: opts["txpool.gossip"],
      poolTxTypes: poolTypes(chain),
      logLevel: opts["log.level"],
      logFormat: opts["log.format"],
    },
    log,
  );
  const plog = log.child({ subsystem: "p2p", protocol: "devp2p" });
  service.onTransactions((raw) => {
    for (const tx of raw) {
      pool.addRaw(tx).catch((e: unknown) => plog.debug({ err: e }, "transaction from a peer refused by the pool"));
    }
  });
  service.onPoolLookup((hashes) => hashes.flatMap((h) => {
    const p = pool.get(h);
    return p === undefined ? [] : [p.raw];
  }));
  if (opts["txpool.gossip"]) {
    pool.onAdded((p) => service.announce([p.hash], [p.tx.type], [p.raw.length]));
  }
  return service;
}
