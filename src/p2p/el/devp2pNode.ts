/**
 * The execution-layer network as the devp2p worker runs it: the RLPx host with its eth/68 and
 * eth/69 sessions, discovery (discv5 under `basev0` on Base's network, discovery v4 on plain
 * Ethereum chains or when asked for), the block server reading the store, the range checks of
 * eth/69 peers, and the transaction exchange. It answers peers itself, tells eth/69 peers its
 * served range as the head moves (BlockRangeUpdate, at most once per 32 blocks); transactions and
 * pool lookups go to the main thread through the callbacks given to it (see `threadProtocol.ts`).
 */
import { ENR } from "@chainsafe/enr";
import { DISCONNECT_REASON } from "@ethereumjs/devp2p";
import type { Logger } from "pino";
import { ETH_REQUEST_TIMEOUT_MS, P2P_EL_HANDSHAKE_TIMEOUT_MS, P2P_EL_STATUS_INTERVAL_MS } from "../constants.js";
import { Counters } from "../../util/counters.js";
import type { ChainStore } from "../../storage/store.js";
import type { BasaltError } from "../../util/errors.js";
import { parseNodeRecord } from "../cl/enrText.js";
import { BlockServer, type HeadInfo } from "./blockServer.js";
import { Discovery } from "./discovery.js";
import { ElDiscv5 } from "./discv5.js";
import { formatEnode, nodeIdHex, parseEnode, type Enode } from "./enode.js";
import { decodeGetBlockHeaders, decodeHashesRequest, encodeResponse, EthCode, ethMessageName } from "./ethMessages.js";
import { EthSession, type EthSessionHost } from "./ethSession.js";
import { EthPeerFaultError, EthProtocolError } from "./errors.js";
import { ForkFilter } from "./forkId.js";
import { nodeIdOf } from "./nodeKey.js";
import { RangeChecker } from "./rangeCheck.js";
import { RlpxHost, type Connection } from "./rlpxHost.js";
import { ETH_69, rangeUpdateDue, type BlockRange, type LocalChain } from "./status.js";
import type { DevP2PWorkerData, ListenWire, PeerWire } from "./threadProtocol.js";
import { TxExchange } from "./txExchange.js";

/** What the node hands to the main thread. */
interface DevP2PNodeHooks {
  forwardTxs(raw: Uint8Array[]): void;
  lookupTxs(hashes: Uint8Array[]): Promise<Uint8Array[]>;
}

/** The drop counter of a refusal: `status_<why>` for a refused Status, the fault's own reason, else `invalid`. */
function dropReason(err: BasaltError): string {
  if (err.code === "P2P_STATUS_REFUSED") return `status_${String(err.meta.reason)}`;
  if (err instanceof EthPeerFaultError) return err.type.reason;
  return "invalid";
}

/** See the module comment. */
export class DevP2PNode implements EthSessionHost {
  readonly counters = new Counters();
  readonly local: LocalChain;
  private readonly blocks: BlockServer;
  private readonly rlpx: RlpxHost;
  private readonly txs: TxExchange;
  private readonly ranges: RangeChecker;
  private discovery: Discovery | undefined;
  private discv5: ElDiscv5 | undefined;
  private readonly privateKey: Uint8Array;
  private readonly id: Uint8Array;
  private readonly staticPeers: Enode[];
  private listen: ListenWire | undefined;
  private timers: NodeJS.Timeout[] = [];

  constructor(store: ChainStore, private readonly cfg: DevP2PWorkerData, private readonly log: Logger, hooks: DevP2PNodeHooks) {
    this.privateKey = Uint8Array.from(Buffer.from(cfg.privateKeyHex, "hex"));
    this.id = nodeIdOf(this.privateKey);
    const genesis = Uint8Array.from(Buffer.from(cfg.genesisHash.replace(/^0x/, ""), "hex"));
    this.local = {
      networkId: BigInt(cfg.chainId),
      genesis,
      forks: ForkFilter.create(genesis, BigInt(cfg.genesisTime), cfg.blockForks.map(BigInt), cfg.timeForks.map(BigInt)),
    };
    this.blocks = new BlockServer(store);
    this.staticPeers = cfg.trustedPeers.map(parseEnode);
    this.rlpx = new RlpxHost({
      privateKey: this.privateKey,
      id: this.id,
      clientId: cfg.clientId,
      capabilities: EthSession.capabilities(this),
      maxInbound: cfg.maxInbound,
      maxOutbound: cfg.maxOutbound,
      handshakeTimeoutMs: P2P_EL_HANDSHAKE_TIMEOUT_MS,
      trusted: new Set(this.staticPeers.map((p) => Buffer.from(p.id).toString("hex"))),
      counters: this.counters,
      log,
    });
    this.rlpx.onRemoved = (c) => {
      if (c.session !== undefined) {
        this.txs.sessionClosed(c.session);
        this.ranges.sessionClosed(c.session);
      }
      this.counters.inc(`disconnects:${c.inbound ? "inbound" : "outbound"}`);
      log.debug({ peer: c.id === undefined ? undefined : Buffer.from(c.id).toString("hex").slice(0, 16) }, "devp2p peer left");
    };
    this.txs = new TxExchange({ poolTypes: new Set(cfg.poolTxTypes), counters: this.counters, forward: hooks.forwardTxs, lookup: hooks.lookupTxs });
    const { regolith, canyon } = cfg.depositNonceRoot;
    this.ranges = new RangeChecker({
      timeoutMs: ETH_REQUEST_TIMEOUT_MS,
      stripDepositNonce: (t) => regolith !== null && t >= BigInt(regolith) && (canyon === null || t < BigInt(canyon)),
      counters: this.counters,
      log,
    });
  }

  /** Binds RLPx and discovery, then dials trusted peers and bootstraps discovery. */
  async start(): Promise<ListenWire> {
    const tcp = await this.rlpx.listen(this.cfg.addr, this.cfg.port);
    const ip = this.cfg.externalIp ?? (this.cfg.addr === "0.0.0.0" ? "127.0.0.1" : this.cfg.addr);
    let udp4 = 0;
    let udp5 = 0;
    if (this.cfg.discv4) {
      this.discovery = new Discovery(this.privateKey, {
        announce: { address: ip, tcpPort: tcp },
        counters: this.counters,
        log: this.log,
        onNode: (n) => this.rlpx.dial(n),
      });
      udp4 = await this.discovery.bind(this.cfg.discoveryAddr, this.cfg.discoveryPort);
      this.discovery.bootstrap(this.cfg.discv4Bootnodes.map(parseEnode));
    }
    if (this.cfg.discv5) {
      this.discv5 = new ElDiscv5({
        privateKey: this.privateKey,
        listenIp: this.cfg.discoveryAddr,
        udpPort: this.cfg.discv5Port,
        advertiseIp: ip,
        tcpPort: tcp,
        protocolId: this.cfg.discv5ProtocolId,
        bootnodes: this.cfg.discv5Bootnodes.flatMap((b) => {
          try {
            const r = parseNodeRecord(b);
            // An enode URL makes an unsigned record; sequence 0 makes the node send its real record in the handshake.
            return [r.signature.length === 0 ? new ENR(r.kvs, 0n, r.signature) : r];
          } catch (e) {
            this.log.warn({ err: e, bootnode: b }, "bootnode unusable for discv5 (IPv4 enode URLs and enr: records only); skipped");
            return [];
          }
        }),
        clientVersion: this.cfg.clientId,
        forks: this.local.forks,
        head: () => this.head(),
        wantPeers: () => this.rlpx.hasOutboundSlot(),
        counters: this.counters,
        log: this.log,
        onNode: (n) => this.rlpx.dial(n),
      });
      udp5 = await this.discv5.start();
    }
    const udp = udp4 !== 0 ? udp4 : udp5;
    const enode = formatEnode({ id: this.id, address: ip, tcpPort: tcp, udpPort: udp === 0 ? tcp : udp });
    this.listen = { enode, enr: this.discv5?.enrText(), id: nodeIdHex(this.id), ip, listenAddr: `${this.cfg.addr}:${tcp}`, ports: { discovery: udp, listener: tcp }, discv5Port: udp5 };
    for (const p of this.staticPeers) this.rlpx.dial(p);
    this.timers.push(
      setInterval(() => {
        for (const p of this.staticPeers) this.rlpx.dial(p);
      }, P2P_EL_HANDSHAKE_TIMEOUT_MS),
      setInterval(() => this.announceRange(), P2P_EL_STATUS_INTERVAL_MS),
    );
    return this.listen;
  }

  head(): HeadInfo {
    this.blocks.refresh();
    return this.blocks.head();
  }

  range(): BlockRange {
    this.blocks.refresh();
    return this.blocks.range();
  }

  /** The discv5 record (`enr:…`) as it is now (its `opel` follows the forks), when discv5 runs. */
  enr(): string | undefined {
    return this.discv5?.enrText();
  }

  /** Sends BlockRangeUpdate to the eth/69 peers whose announced range is 32 or more blocks behind. */
  private announceRange(): void {
    const sessions = this.sessions().filter((s) => s.version >= ETH_69);
    if (sessions.length === 0) return;
    let now: BlockRange;
    try {
      now = this.range();
    } catch (e) {
      this.log.debug({ err: e }, "served range unreadable");
      return;
    }
    for (const s of sessions) {
      if (!rangeUpdateDue(s.announcedRange, now)) continue;
      s.sendRangeUpdate(now);
      this.counters.inc("messages:out:BlockRangeUpdate");
    }
  }

  private sessions(): EthSession[] {
    return this.rlpx.ready().flatMap((c) => (c.session === undefined ? [] : [c.session]));
  }

  onReady(session: EthSession): void {
    const c = this.rlpx.sessionReady(session);
    if (c === undefined) return;
    this.counters.inc(`connects:${c.inbound ? "inbound" : "outbound"}`);
    this.log.debug({ peer: Buffer.from(c.id ?? []).toString("hex").slice(0, 16), inbound: c.inbound, eth: session.version }, "devp2p peer ready");
    if (session.remoteRange !== undefined) this.ranges.check(session, session.remoteRange);
  }

  onRangeUpdate(session: EthSession, range: BlockRange): void {
    this.counters.inc("messages:in:BlockRangeUpdate");
    this.ranges.check(session, range);
  }

  onRefused(session: EthSession, err: BasaltError, messageName: string): void {
    this.counters.inc(`dropped:${dropReason(err)}`);
    // Messages after the Status were counted on arrival (BlockRangeUpdate too); a refused Status (or what came before it) is counted here.
    if (session.remoteStatus === undefined) this.counters.inc(`messages:in:${messageName}`);
    this.log.debug({ err, message: messageName }, "devp2p peer refused");
  }

  onMessage(session: EthSession, code: number, payload: Uint8Array): void {
    const name = ethMessageName(code);
    this.counters.inc(`messages:in:${name}`);
    switch (code) {
      case EthCode.GetBlockHeaders: {
        const { id, query } = decodeGetBlockHeaders(payload);
        this.blocks.refresh();
        this.reply(session, EthCode.BlockHeaders, id, this.blocks.headers(query));
        return;
      }
      case EthCode.GetBlockBodies: {
        const { id, hashes } = decodeHashesRequest(name, payload);
        this.blocks.refresh();
        this.reply(session, EthCode.BlockBodies, id, this.blocks.bodies(hashes));
        return;
      }
      case EthCode.GetReceipts: {
        const { id, hashes } = decodeHashesRequest(name, payload);
        this.blocks.refresh();
        this.reply(session, EthCode.Receipts, id, this.blocks.receipts(hashes, session.version));
        return;
      }
      case EthCode.NewPooledTransactionHashes:
        this.txs.onAnnouncement(session, payload);
        return;
      case EthCode.PooledTransactions:
        this.txs.onPooledTransactions(session, payload);
        return;
      case EthCode.Transactions:
        this.txs.onTransactions(session, payload);
        return;
      case EthCode.GetPooledTransactions:
        this.txs.onGetPooledTransactions(session, payload).catch((e: unknown) => {
          this.counters.inc("dropped:invalid");
          this.log.debug({ err: e }, "GetPooledTransactions refused");
          session.disconnect(DISCONNECT_REASON.SUBPROTOCOL_ERROR);
        });
        return;
      case EthCode.BlockHeaders:
      case EthCode.BlockBodies:
      case EthCode.Receipts:
        // Answers to the range checks; any other answer (basalt asks for no other blocks) is ignored.
        this.ranges.onResponse(session, code, payload);
        return;
      default:
        // NewBlock / NewBlockHashes are gone since the merge (EIP-3675), and codes eth/69 does not define.
        throw new EthProtocolError(name, `message code 0x${code.toString(16)} is not accepted on eth/${session.version} after the merge`);
    }
  }

  private reply(session: EthSession, code: number, id: bigint, items: Uint8Array[]): void {
    session.send(code, encodeResponse(id, items));
    this.counters.inc(`messages:out:${ethMessageName(code)}`);
  }

  /** Announces pool transactions (gossip on). */
  announce(hashes: Uint8Array[], types: number[], sizes: number[]): void {
    if (!this.cfg.txGossip) return;
    this.txs.announce(this.sessions(), hashes, types, sizes);
  }

  /** admin_addPeer: dials the enode and keeps it as a static peer. */
  addPeer(enode: string): void {
    const e = parseEnode(enode);
    if (!this.staticPeers.some((p) => Buffer.from(p.id).equals(Buffer.from(e.id)))) this.staticPeers.push(e);
    this.rlpx.dial(e);
  }

  /** admin_removePeer: forgets the static peer and disconnects it. */
  removePeer(enode: string): boolean {
    const e = parseEnode(enode);
    const i = this.staticPeers.findIndex((p) => Buffer.from(p.id).equals(Buffer.from(e.id)));
    if (i >= 0) this.staticPeers.splice(i, 1);
    return this.rlpx.drop(e.id);
  }

  /** The peers with an eth session, as admin_peers shows them. */
  peers(): PeerWire[] {
    return this.rlpx.ready().map((c: Connection) => {
      const hello = c.peer.getHelloMessage();
      const id = c.id ?? new Uint8Array(64);
      const [host, port] = [c.socket.remoteAddress ?? "", hello !== null && hello.port > 0 && !c.inbound ? hello.port : c.socket.remotePort ?? 0];
      return {
        id: nodeIdHex(id),
        enode: formatEnode({ id, address: host.replace(/^::ffff:/, ""), tcpPort: port, udpPort: port }),
        name: hello?.clientId ?? "",
        caps: (hello?.capabilities ?? []).map((cap) => `${cap.name}/${cap.version}`),
        remoteAddress: c.remoteAddress,
        localAddress: c.localAddress,
        inbound: c.inbound,
        trusted: c.trusted,
        static: this.staticPeers.some((p) => Buffer.from(p.id).equals(Buffer.from(id))),
        version: c.session?.version ?? 0,
      };
    });
  }

  /** Counters, with bytes written so far, and the discovery tables' sizes. */
  snapshot(): { counters: Record<string, number>; discoveryNodes: { discv4?: number; discv5?: number }; listening: boolean } {
    this.rlpx.countBytesOut();
    const discoveryNodes: { discv4?: number; discv5?: number } = {};
    if (this.discovery !== undefined) discoveryNodes.discv4 = this.discovery.size();
    if (this.discv5 !== undefined) discoveryNodes.discv5 = this.discv5.size();
    return { counters: this.counters.snapshot(), discoveryNodes, listening: this.rlpx.listening };
  }

  /** Disconnects every peer and closes the sockets. */
  async stop(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.discovery?.stop();
    await this.discv5?.stop();
    await this.rlpx.stop();
  }
}
