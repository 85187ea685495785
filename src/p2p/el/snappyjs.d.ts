/** Types of snappyjs 0.7 (block format), which ships none: the two functions devp2p messages use. */
declare module "snappyjs" {
  /** Compresses a buffer (snappy block format). */
  export function compress(input: Uint8Array): Uint8Array;
  /** Decompresses a buffer; throws when the declared length is above `maxLength` or the stream is corrupt. */
  export function uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
}
