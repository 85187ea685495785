/** Types of snappyjs 0.7 (the package ships none): snappy block compression. */
declare module "snappyjs" {
  /** Compresses one snappy block. */
  export function compress(input: Uint8Array): Uint8Array;
  /** Decompresses one snappy block; throws when it is malformed or decompresses past `maxLength`. */
  export function uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
}
