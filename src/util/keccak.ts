/**
 * keccak256 for every hot path (trie roots, state trie, blooms, transaction and payload
 * hashes): the native addon's one-call implementation when built (1.5 µs for 32 bytes,
 * 5 µs for 1 KiB), else @noble/hashes (7.7 µs, 52 µs). `BASALT_NATIVE_CRYPTO=0` forces the
 * JavaScript path (the tests run both). Figures: native/README.md.
 */
import { keccak_256 } from "@noble/hashes/sha3.js";
import { nativeAddon } from "./nativeAddon.js";

const addon = nativeAddon();

/** Keccak-256 of `data` (32 bytes). */
export const keccak256: (data: Uint8Array) => Uint8Array = addon !== undefined ? addon.keccak256 : keccak_256;

/** Which implementation {@link keccak256} is: `native` (basalt's addon) or `js`. */
export const keccakBackend: "native" | "js" = addon !== undefined ? "native" : "js";
