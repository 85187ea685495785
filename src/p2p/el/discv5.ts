/**
 * Execution-layer node discovery over discv5 as Base's nodes run it since Azul (base/base
 * crates/execution/node/src/node.rs `BaseDiscoveryConfig`): a @chainsafe/discv5 node under
 * protocol id `basev0` (`discv5Transport.ts`) on its own UDP port (`--discovery.v5.port`, 9200),
 * whose record carries ip/tcp/udp, the chain's fork id (`opel`, refreshed when a fork activates)
 * and `base` = the client version (`elEnr.ts`). Records found by random lookups, in the table and
 * from bootnodes are dial candidates for RLPx when they carry `base` or a compatible `opel` and a
 * TCP port; each refused record is counted by reason (`dropped:enr_<reason>`), as is every
 * datagram dropped for another protocol id (`dropped:discv5WrongProtocol`) or not decoding
 * (`dropped:discv5Invalid`). Lookups run every 5 s while RLPx has free outbound slots, else every
 * 20 s (op-node's discovery intervals, which the consensus layer's discv5 uses too).
 */
import { Discv5 } from "@chainsafe/discv5";
import { SignableENR, type ENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import type { EventEmitter } from "node:events";
import type { Logger } from "pino";
import { P2P_DISCOVER_INTERVAL_MS } from "../constants.js";
import type { Counters } from "../../util/counters.js";
import { LruMap } from "../../util/lru.js";
import { ProtocolIdTransport, withProtocolId } from "./discv5Transport.js";
import { BASE_ENR_KEY, elEnrFilter, OPEL_ENR_KEY, opelEntry } from "./elEnr.js";
import type { Enode } from "./enode.js";
import type { ForkFilter, ForkHead } from "./forkId.js";

/** Refused records remembered so a record seen again in the table is not counted again (a few k-buckets' worth). */
const REFUSED_RECORDS = 4_096;

/** Options of an {@link ElDiscv5}. */
interface ElDiscv5Options {
  /** The node key (32 bytes), the same as RLPx's: the record's public key is the enode id. */
  privateKey: Uint8Array;
  /** UDP listen address (IPv4) and port (0 = any free port). */
  listenIp: string;
  udpPort: number;
  /** The address and RLPx TCP port put in the record. */
  advertiseIp: string;
  tcpPort: number;
  /** `basev0` on Base's network. */
  protocolId: string;
  /** Records to start from (signed `enr:` records, or unsigned ones made of enode URLs). */
  bootnodes: readonly ENR[];
  /** The `base` entry: the client version. */
  clientVersion: string;
  forks: ForkFilter;
  /** The current head (for the `opel` fork id and the fork-id check of records). */
  head(): ForkHead;
  /** Whether RLPx has free outbound slots (lookups run faster then). */
  wantPeers(): boolean;
  counters: Counters;
  log: Logger;
  /** A record passed the filter: a dial candidate. */
  onNode(node: Enode): void;
}

/** See the module comment. */
export class ElDiscv5 {
  private dv5: Discv5 | undefined;
  private undo: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastLookup = 0;
  private opel = "";
  /** Records (node id and sequence number) already refused: each refusal is counted once. */
  private readonly refused = new LruMap<string, true>(REFUSED_RECORDS);

  constructor(private readonly o: ElDiscv5Options) {}

  /** Binds the UDP socket and starts discovery; resolves with the bound port. */
  async start(): Promise<number> {
    const o = this.o;
    const key = privateKeyFromRaw(o.privateKey);
    // @libp2p/crypto builds its keys on a newer @libp2p/interface than discv5 names; the key object is the same at run time.
    const enr = SignableENR.createFromPrivateKey(key as never);
    enr.ip = o.advertiseIp;
    enr.tcp = o.tcpPort;
    enr.set(BASE_ENR_KEY, new TextEncoder().encode(o.clientVersion));
    this.setOpel(enr);
    const bindAddr = multiaddr(`/ip4/${o.listenIp}/udp/${o.udpPort}`);
    const transport = new ProtocolIdTransport({
      bindAddr,
      nodeId: enr.nodeId,
      protocolId: o.protocolId,
      onRefused: (refusal, from, err) => {
        o.counters.inc(refusal === "wrongProtocol" ? "dropped:discv5WrongProtocol" : "dropped:discv5Invalid");
        o.log.debug({ err, from }, "discv5 datagram dropped");
      },
      onBytes: (direction, n) => o.counters.inc(`bytes:${direction}`, n),
    });
    const dv5 = Discv5.create({ enr, privateKey: key as never, bindAddrs: { ip4: bindAddr }, transport: transport.asService(), config: { enrUpdate: false } });
    this.undo = withProtocolId(dv5, o.protocolId);
    this.dv5 = dv5;
    const events = dv5 as unknown as EventEmitter;
    events.on("discovered", (r: ENR) => this.consider(r));
    events.on("enrAdded", (r: ENR) => this.consider(r));
    await dv5.start();
    dv5.enr.udp = transport.port;
    for (const b of o.bootnodes) {
      try {
        dv5.addEnr(b);
      } catch (e) {
        o.log.warn({ err: e }, "execution bootnode not added to the discv5 table");
      }
    }
    this.timer = setInterval(() => this.tick(), 1_000);
    this.tick();
    return transport.port;
  }

  /** The local record as `enr:…` (admin_nodeInfo). */
  enrText(): string {
    return this.dv5?.enr.encodeTxt() ?? "";
  }

  /** Records in the table. */
  size(): number {
    return this.dv5?.kadValues().length ?? 0;
  }

  /** Sets `opel` to the fork id at the head when it changed (the record's sequence number goes up). */
  private setOpel(enr: SignableENR): void {
    const f = this.o.forks.forkId(this.o.head());
    const text = `${Buffer.from(f.hash).toString("hex")}/${f.next}`;
    if (text === this.opel) return;
    this.opel = text;
    // An ENR value is any RLP item; @chainsafe/enr encodes a nested array as the list it is.
    enr.set(OPEL_ENR_KEY, opelEntry(f) as unknown as Uint8Array);
  }

  private consider(r: ENR): void {
    try {
      // Records made of enode URLs (bootnodes) are unsigned: contacts for lookups, not RLPx peers.
      if (r.signature.length === 0 || r.nodeId === this.dv5?.enr.nodeId) return;
      const refuse = (why: string): void => {
        const key = `${r.nodeId}:${r.seq}`;
        if (this.refused.get(key) !== undefined) return;
        this.refused.set(key, true);
        this.o.counters.inc(`dropped:enr_${why}`);
      };
      const refusal = elEnrFilter(r.kvs, this.o.forks, this.o.head());
      if (refusal !== undefined) return refuse(refusal);
      const ip = r.ip;
      const tcp = r.tcp;
      if (ip === undefined || tcp === undefined || tcp === 0) return refuse("noTcpAddress");
      const id = secp256k1.Point.fromBytes(r.publicKey).toBytes(false).subarray(1);
      this.o.onNode({ id, address: ip, tcpPort: tcp, udpPort: r.udp ?? 0 });
    } catch (e) {
      this.o.counters.inc("dropped:enr_badRecord");
      this.o.log.debug({ err: e }, "discovered record refused");
    }
  }

  private tick(): void {
    const dv5 = this.dv5;
    if (dv5 === undefined) return;
    this.setOpel(dv5.enr);
    const now = Date.now();
    const every = this.o.wantPeers() ? P2P_DISCOVER_INTERVAL_MS.fast : P2P_DISCOVER_INTERVAL_MS.slow;
    if (now - this.lastLookup < every) return;
    this.lastLookup = now;
    for (const r of dv5.kadValues()) this.consider(r);
    dv5.findRandomNode().catch((e: unknown) => this.o.log.debug({ err: e }, "discv5 random lookup failed"));
  }

  /** Stops lookups and closes the socket. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.undo?.();
    await this.dv5?.stop().catch(() => undefined);
    this.dv5 = undefined;
  }
}
