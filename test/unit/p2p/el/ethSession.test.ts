/**
 * The eth session's ordering, without sockets: a peer's Status can arrive before our own goes
 * out (ours is sent on the tick after the session opens); our Status must still be the first
 * message we send, before anything the host sends once the session is ready (eth/69's range check
 * asks for headers at once) — a peer refuses any message before the Status. Found as a race
 * between two basalt nodes dialling each other; and the choice between two connections of one pair.
 */
import { hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { EthCode } from "../../../../src/p2p/el/ethMessages.js";
import { EthSession, type EthSessionHost } from "../../../../src/p2p/el/ethSession.js";
import { ForkFilter } from "../../../../src/p2p/el/forkId.js";
import { keepsConnection } from "../../../../src/p2p/el/rlpxHost.js";
import { encodeStatus, ETH_69 } from "../../../../src/p2p/el/status.js";

const GENESIS = hexToBytes(`0x${"ab".repeat(32)}`);
const forks = ForkFilter.create(GENESIS, 0n, [], []);
const head = { number: 3n, timestamp: 100n, hash: hexToBytes(`0x${"cd".repeat(32)}`) };

describe("eth session", () => {
  it("sends its Status before anything the host sends when the peer's Status came first", () => {
    const sent: number[] = [];
    const host: EthSessionHost = {
      local: { networkId: 845337n, genesis: GENESIS, forks },
      head: () => head,
      range: () => ({ earliest: 0n, latest: 3n, latestHash: head.hash }),
      onReady: (s) => s.send(EthCode.GetBlockHeaders, new Uint8Array([0xc0])),
      onMessage: () => undefined,
      onRefused: () => undefined,
      onRangeUpdate: () => undefined,
    };
    const peer = { _socket: { remoteAddress: "127.0.0.1" }, getHelloMessage: () => ({ protocolVersion: 5 }), disconnect: () => undefined };
    const session = new EthSession(ETH_69, peer as never, (code: number) => void sent.push(code), host);
    const remote = encodeStatus({ version: ETH_69, networkId: 845337n, genesis: GENESIS, forkId: forks.forkId(head), range: { earliest: 0n, latest: 3n, latestHash: head.hash } });
    // The peer's Status is handled in this tick, before the session's own Status (queued for the next tick).
    session._handleMessage(EthCode.Status, remote);
    expect(sent).toEqual([EthCode.Status, EthCode.GetBlockHeaders]);
    expect(session.remoteStatus?.range?.latest).toBe(3n);
    clearTimeout((session as unknown as { _statusTimeoutId: NodeJS.Timeout })._statusTimeoutId);
  });
});

describe("two connections between the same nodes", () => {
  it("both ends keep the same one: the connection the lower node id dialled", () => {
    const ids = Array.from({ length: 20 }, (_, i) => Uint8Array.from(Buffer.from(((i * 7919 + 13) % 251).toString(16).padStart(2, "0").repeat(64), "hex")));
    for (const a of ids) {
      for (const b of ids) {
        if (Buffer.from(a).equals(Buffer.from(b))) continue;
        // Connection 1: a dialled b (outbound at a, inbound at b); connection 2: b dialled a.
        const keep1AtA = keepsConnection(a, b, false);
        const keep1AtB = keepsConnection(b, a, true);
        const keep2AtA = keepsConnection(a, b, true);
        const keep2AtB = keepsConnection(b, a, false);
        expect(keep1AtA).toBe(keep1AtB);
        expect(keep2AtA).toBe(keep2AtB);
        expect(keep1AtA).not.toBe(keep2AtA);
      }
    }
  });
});
