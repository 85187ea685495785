/**
 * Brotli channel compression off the event loop. `compressChannel` (derivation's
 * channelCompression.ts) compresses on the calling thread; at brotli quality 10 that is about
 * 1 MB of batch stream per second on the 2-core machine (a 6-blob channel holds ~2 MB), so on the
 * node's main thread it would stall every RPC answer for seconds. Node's asynchronous brotli runs
 * on libuv's thread pool with the same parameters and gives the same bytes (checked in
 * test/unit/batcher/compress.test.ts): `0x01 ++ brotli(rlp_batches)` (specs fjord/derivation.md).
 */
import { promisify } from "node:util";
import { brotliCompress, constants as zc } from "node:zlib";
import { CHANNEL_BROTLI_LGWIN, CHANNEL_BROTLI_QUALITY } from "../config/constants.js";
import { type Batch } from "../derivation/batch.js";
import { encodeBatchStream } from "../derivation/channel.js";
import { CHANNEL_VERSION_BROTLI } from "../derivation/channelCompression.js";

const brotli = promisify(brotliCompress);

/** The brotli channel of `batches` (what `encodeChannel(batches, { compression: "brotli" })` gives), compressed on the thread pool. */
export async function compressBrotliChannel(batches: readonly Batch[]): Promise<Uint8Array> {
  const stream = encodeBatchStream(batches);
  const body = await brotli(stream, {
    params: { [zc.BROTLI_PARAM_QUALITY]: CHANNEL_BROTLI_QUALITY, [zc.BROTLI_PARAM_LGWIN]: CHANNEL_BROTLI_LGWIN, [zc.BROTLI_PARAM_SIZE_HINT]: stream.length },
  });
  const out = new Uint8Array(1 + body.length);
  out[0] = CHANNEL_VERSION_BROTLI;
  out.set(body, 1);
  return out;
}
