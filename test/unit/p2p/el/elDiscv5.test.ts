/**
 * The execution layer's discv5 service on loopback, under `basev0`: its record (ip, tcp, udp,
 * `opel`, `base`), the `opel` fork id following the head across a fork (sequence number up), and
 * what it hands RLPx: a node started from another's record finds it and offers it as a dial
 * candidate with the right enode id and TCP port; a `basev0` node whose record has neither `base`
 * nor `opel` is refused and counted.
 */
import { Discv5 } from "@chainsafe/discv5";
import { ENR, SignableENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { multiaddr } from "@multiformats/multiaddr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { Counters } from "../../../../src/util/counters.js";
import { ElDiscv5 } from "../../../../src/p2p/el/discv5.js";
import { ProtocolIdTransport, withProtocolId } from "../../../../src/p2p/el/discv5Transport.js";
import { decodeOpelEntry } from "../../../../src/p2p/el/elEnr.js";
import type { Enode } from "../../../../src/p2p/el/enode.js";
import { ForkFilter, type ForkHead } from "../../../../src/p2p/el/forkId.js";
import { pollUntil } from "../../../helpers/poll.js";

const genesis = new Uint8Array(32).fill(3);
/** One time fork at 1000. */
const forks = ForkFilter.create(genesis, 0n, [], [1_000n]);
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function service(head: () => ForkHead, bootnodes: ENR[] = [], found: Enode[] = [], counters = new Counters()): { svc: ElDiscv5; key: Uint8Array; counters: Counters } {
  const key = Uint8Array.from(randomBytes(32));
  const svc = new ElDiscv5({
    privateKey: key,
    listenIp: "127.0.0.1",
    udpPort: 0,
    advertiseIp: "127.0.0.1",
    tcpPort: 30_399,
    protocolId: "basev0",
    bootnodes,
    clientVersion: "basalt/test",
    forks,
    head,
    wantPeers: () => true,
    counters,
    log: pino({ level: "silent" }),
    onNode: (n) => found.push(n),
  });
  stops.push(() => svc.stop());
  return { svc, key, counters };
}

describe("execution-layer discv5", () => {
  it("puts ip, tcp, udp, opel and base in its record, and moves opel to the next fork id when the head passes the fork", async () => {
    let head: ForkHead = { number: 5n, timestamp: 900n };
    const { svc } = service(() => head);
    const udp = await svc.start();
    const before = ENR.decodeTxt(svc.enrText());
    expect([before.ip, before.tcp, before.udp]).toEqual(["127.0.0.1", 30_399, udp]);
    expect(new TextDecoder().decode(before.kvs.get("base"))).toBe("basalt/test");
    expect(decodeOpelEntry(before.kvs.get("opel"))).toEqual(forks.forkId(head));
    expect(forks.forkId(head).next).toBe(1_000n);
    head = { number: 6n, timestamp: 1_000n };
    const after = await pollUntil("opel refreshed", 10_000, async () => {
      const r = ENR.decodeTxt(svc.enrText());
      return decodeOpelEntry(r.kvs.get("opel"))?.next === 0n ? r : undefined;
    }, 100);
    expect(decodeOpelEntry(after.kvs.get("opel"))).toEqual(forks.forkId(head));
    expect(after.seq).toBeGreaterThan(before.seq);
  });

  it("offers a node found over basev0 to RLPx with its enode id and TCP port, and refuses a record without base or opel", async () => {
    const head = (): ForkHead => ({ number: 1n, timestamp: 100n });
    const { svc: a, key } = service(head);
    await a.start();
    // A bare basev0 node: its record has no base or opel entry.
    const bareKey = privateKeyFromRaw(randomBytes(32));
    const bareEnr = SignableENR.createFromPrivateKey(bareKey as never);
    bareEnr.ip = "127.0.0.1";
    bareEnr.tcp = 30_398;
    const bindAddr = multiaddr("/ip4/127.0.0.1/udp/0");
    const transport = new ProtocolIdTransport({ bindAddr, nodeId: bareEnr.nodeId, protocolId: "basev0", onRefused: () => undefined });
    const bare = Discv5.create({ enr: bareEnr, privateKey: bareKey as never, bindAddrs: { ip4: bindAddr }, transport: transport.asService(), config: { enrUpdate: false } });
    const undo = withProtocolId(bare, "basev0");
    await bare.start();
    bare.enr.udp = transport.port;
    stops.push(async () => {
      undo();
      await bare.stop();
    });
    const found: Enode[] = [];
    const { svc: b, counters } = service(head, [ENR.decodeTxt(a.enrText()), bare.enr.toENR()], found);
    await b.start();
    const aNode = await pollUntil("A offered to RLPx", 15_000, async () => found.find((n) => n.tcpPort === 30_399), 100);
    expect(Buffer.from(aNode.id).toString("hex")).toBe(Buffer.from(secp256k1.getPublicKey(key, false).subarray(1)).toString("hex"));
    expect(aNode.address).toBe("127.0.0.1");
    expect(found.some((n) => n.tcpPort === 30_398)).toBe(false);
    expect(counters.snapshot()["dropped:enr_noBaseOrOpel"]).toBe(1);
    expect(b.size()).toBeGreaterThanOrEqual(1);
  });
});
