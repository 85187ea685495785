/**
 * The node key of the execution-layer network: a secp256k1 private key kept as 64 hex digits in
 * a file (`--p2p-secret-key`, default `<datadir>/discovery-secret` as reth), created once with
 * mode 0600 and reused, so the node keeps its enode across restarts.
 */
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { NodeKeyError } from "./errors.js";

/** The private key of `path`, creating the file with a fresh key when it does not exist. @throws NodeKeyError for a file that is not a key. */
export function loadOrCreateNodeKey(path: string): Uint8Array {
  if (!existsSync(path)) {
    let key: Uint8Array;
    do key = Uint8Array.from(randomBytes(32));
    while (!secp256k1.utils.isValidSecretKey(key));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, Buffer.from(key).toString("hex"), { mode: 0o600, flag: "wx" });
    return key;
  }
  const text = readFileSync(path, "utf8").trim().replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new NodeKeyError(path, `holds ${text.length} characters, not 64 hex digits`);
  const key = Uint8Array.from(Buffer.from(text, "hex"));
  if (!secp256k1.utils.isValidSecretKey(key)) throw new NodeKeyError(path, "not a valid secp256k1 private key (zero or above the curve order)");
  return key;
}

/** The 64-byte node id (uncompressed public key without its 0x04 prefix) of a private key. */
export function nodeIdOf(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, false).subarray(1);
}
