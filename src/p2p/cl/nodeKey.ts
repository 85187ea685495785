/**
 * The node's network identity: a secp256k1 key kept as hex in a file (op-node's `--p2p.priv.path`,
 * `opnode_p2p_priv.txt`): created with a fresh random key when the file does not exist, read back
 * on every later start, so the peer id and ENR node id survive restarts. As op-node, the file is
 * written mode 0600 without a 0x prefix and read with or without one.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { P2PError, P2PErrorCode } from "../errors.js";
import { fromHex, toHex } from "../../util/bytes.js";

/** Parses a hex secp256k1 private key (32 bytes, optional 0x); `what` names its source in the error. */
export function parseSecp256k1Key(text: string, what: string): Uint8Array {
  const h = text.trim().replace(/^0x/, "");
  if (!/^[0-9a-fA-F]{64}$/.test(h)) {
    throw new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what }, `${what}: expected a hex-encoded 32-byte secp256k1 private key`);
  }
  const key = fromHex(h);
  if (!secp256k1.utils.isValidSecretKey(key)) {
    throw new P2PError({ code: P2PErrorCode.INVALID_CONFIG, what }, `${what}: not a valid secp256k1 private key (zero or not below the curve order)`);
  }
  return key;
}

/** Reads the node key at `file`, or creates the file with a new key. Returns the 32 key bytes. */
export function loadOrCreateNodeKey(file: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    const key = secp256k1.utils.randomSecretKey();
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, toHex(key), { mode: 0o600, flag: "wx" });
    return key;
  }
  return parseSecp256k1Key(text, `node key file ${file}`);
}
