/**
 * Node identities of the execution-layer network: enode URLs
 * (`enode://<64-byte public key hex>@<ip>:<tcp port>[?discport=<udp port>]`, devp2p's
 * enode-url-format) and the node id that admin_nodeInfo and admin_peers show (keccak256 of the
 * public key, as reth and geth).
 */
import { isIP } from "node:net";
import { keccak256 } from "../../util/keccak.js";
import { EnodeUrlError } from "./errors.js";

/** A parsed enode URL. */
export interface Enode {
  /** The node's uncompressed secp256k1 public key without its 0x04 prefix (64 bytes). */
  id: Uint8Array;
  /** IP address (v4 or v6). */
  address: string;
  /** RLPx TCP port. */
  tcpPort: number;
  /** Discovery UDP port (the TCP port unless `?discport=` says otherwise). */
  udpPort: number;
}

function port(url: string, s: string): number {
  const n = Number(s);
  if (!/^\d+$/.test(s) || n > 65_535) throw new EnodeUrlError(url, `port ${JSON.stringify(s)} is not a number from 0 to 65535`);
  return n;
}

/** Parses an enode URL. @throws EnodeUrlError naming what is wrong. */
export function parseEnode(url: string): Enode {
  const m = /^enode:\/\/([0-9a-fA-F]+)@(\[[^\]]+\]|[^:?]+):(\d+)(?:\?discport=(\d+))?$/.exec(url.trim());
  if (m === null) throw new EnodeUrlError(url, "not of the enode URL form");
  const [, hex, host, tcp, disc] = m as unknown as [string, string, string, string, string | undefined];
  if (hex.length !== 128) throw new EnodeUrlError(url, `the node id has ${hex.length} hex digits, not 128`);
  const address = host.startsWith("[") ? host.slice(1, -1) : host;
  if (isIP(address) === 0) throw new EnodeUrlError(url, `host ${JSON.stringify(address)} is not an IP address`);
  const tcpPort = port(url, tcp);
  return { id: Uint8Array.from(Buffer.from(hex, "hex")), address, tcpPort, udpPort: disc === undefined ? tcpPort : port(url, disc) };
}

/** Formats an enode URL (with `?discport=` only when the UDP port differs). */
export function formatEnode(e: Enode): string {
  const host = isIP(e.address) === 6 ? `[${e.address}]` : e.address;
  const disc = e.udpPort === e.tcpPort ? "" : `?discport=${e.udpPort}`;
  return `enode://${Buffer.from(e.id).toString("hex")}@${host}:${e.tcpPort}${disc}`;
}

/** The node id shown by admin_nodeInfo / admin_peers: keccak256 of the 64-byte public key, hex without 0x. */
export function nodeIdHex(publicKey: Uint8Array): string {
  return Buffer.from(keccak256(publicKey)).toString("hex");
}
