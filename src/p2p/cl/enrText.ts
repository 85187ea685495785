/**
 * Node records given on the command line (`--p2p.bootnodes`): `enr:` texts, or `enode://` URLs as
 * op-node also accepts (go-ethereum's `enode.Parse`). An enode URL has no signed record, so it
 * becomes an unsigned record holding its public key, IP and ports (what discv5 needs to contact
 * the node; the node's own signed record replaces it during the handshake).
 */
import { ENR } from "@chainsafe/enr";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { isIPv4 } from "node:net";
import { P2PError, P2PErrorCode } from "../errors.js";
import { fromHex } from "../../util/bytes.js";

function ipBytes(ip: string): Uint8Array | undefined {
  if (!isIPv4(ip)) return undefined;
  return Uint8Array.from(ip.split(".").map(Number));
}

function port(n: number): Uint8Array {
  return Uint8Array.of((n >> 8) & 0xff, n & 0xff);
}

/** Parses one bootnode: an `enr:` text or an `enode://<128 hex>@<ipv4>:<tcp>[?discport=<udp>]` URL. */
export function parseNodeRecord(text: string): ENR {
  const t = text.trim();
  const bad = (why: string): P2PError =>
    new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what: "bootnode" }, `bootnode ${JSON.stringify(t.slice(0, 80))}: ${why}; expected enr:… or enode://<pubkey>@<ip>:<port>`);
  if (t.startsWith("enr:")) {
    try {
      return ENR.decodeTxt(t);
    } catch (e) {
      throw bad(`not a valid ENR (${(e as Error).message})`);
    }
  }
  const m = /^enode:\/\/([0-9a-fA-F]{128})@([^:/?]+):(\d{1,5})(?:\?discport=(\d{1,5}))?$/.exec(t);
  if (m === null) throw bad("unrecognized format");
  let pub: Uint8Array;
  try {
    pub = secp256k1.Point.fromBytes(fromHex(`04${m[1]}`)).toBytes(true);
  } catch {
    throw bad("the public key is not on secp256k1");
  }
  const ip = ipBytes(m[2]!);
  if (ip === undefined) throw bad("the host must be an IPv4 address");
  const tcp = Number(m[3]);
  const udp = m[4] === undefined ? tcp : Number(m[4]);
  if (tcp > 65_535 || udp > 65_535) throw bad("port out of range");
  const kvs = new Map<string, Uint8Array>([
    ["id", new TextEncoder().encode("v4")],
    ["secp256k1", pub],
    ["ip", ip],
    ["tcp", port(tcp)],
    ["udp", port(udp)],
  ]);
  return new ENR(kvs, 1n, new Uint8Array(0));
}
