/**
 * basalt's own native addon (native/, C through Node-API, built at install by
 * `native/build.mjs` with the machine's compiler). Optional: when it is not built, or
 * `BASALT_NATIVE_CRYPTO=0` is set, every caller uses its JavaScript fallback.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The functions the addon exports (native/src/addon.c). */
interface BasaltNativeAddon {
  /** Keccak-256 of `data` (32 bytes). */
  keccak256(data: Uint8Array): Uint8Array;
  /**
   * The 64-byte public key (x ‖ y) that signed `msg32` with the compact signature `sig64`
   * (r ‖ s) and recovery id `recid` (the machine's libsecp256k1, linked when the addon was
   * built; absent without it); undefined when r or s is not below
   * the group order, `recid` is not 0–3, or no key recovers. Throws a TypeError for arguments
   * of the wrong type or length.
   */
  secp256k1Recover?(sig64: Uint8Array, recid: number, msg32: Uint8Array): Uint8Array | undefined;
}

/** Where node-gyp puts the addon, relative to the repository root. */
const ADDON_PATH = join("native", "build", "Release", "basalt_native.node");
/** Directory levels searched upwards for the repository root (src/util in sources, dist/src/util when built). */
const MAX_LEVELS = 5;

let loaded: BasaltNativeAddon | null | undefined;

/** The addon, or undefined when it is not built, fails its self-check, or is disabled. */
export function nativeAddon(): BasaltNativeAddon | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  loaded = null;
  if (process.env.BASALT_NATIVE_CRYPTO === "0") return undefined;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < MAX_LEVELS; i++, dir = dirname(dir)) {
    const file = join(dir, ADDON_PATH);
    if (!existsSync(file)) continue;
    try {
      const addon = createRequire(import.meta.url)(file) as BasaltNativeAddon;
      // Self-check against the known digest of the empty string before trusting it.
      const empty = Buffer.from(addon.keccak256(new Uint8Array(0))).toString("hex");
      if (empty === "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") loaded = addon;
    } catch {
      // A stale or foreign build: the fallback serves.
    }
    break;
  }
  return loaded ?? undefined;
}

/** What the addon built on this machine can do (each capability is optional; callers fall back to JavaScript). */
export interface NativeCapabilities {
  /** Keccak-256 (the addon is built and loaded). */
  keccak256: boolean;
  /** Sender recovery through the machine's libsecp256k1 (linked when `libsecp256k1-dev` was installed at build time). */
  secp256k1Recover: boolean;
}

/** The capabilities of {@link nativeAddon} (all false when it is not built or `BASALT_NATIVE_CRYPTO=0`). */
export function nativeCapabilities(): NativeCapabilities {
  const addon = nativeAddon();
  return { keccak256: addon !== undefined, secp256k1Recover: addon?.secp256k1Recover !== undefined };
}
