/**
 * Counts the bytes of every libp2p connection (basalt_p2p_bytes_total): a libp2p `metrics`
 * component whose only live part is `trackMultiaddrConnection`, called by the upgrader for each
 * raw connection; it wraps the connection's source and sink and adds each chunk's length. The
 * other metric registrations of the interface (libp2p's own internal metrics) are no-ops.
 */
import type { Metrics, MultiaddrConnection } from "@libp2p/interface";

/** Running totals in bytes. */
export interface ByteTotals {
  inbound: number;
  outbound: number;
}

type Chunk = { byteLength: number };

/** A value that accepts any call or property read and does nothing (the unused metric objects). */
const NOOP: unknown = new Proxy(function noop() {}, {
  get: (_t, prop) => (prop === "then" ? undefined : NOOP),
  apply: () => NOOP,
});

/** The libp2p `metrics` factory counting into `totals`. */
export function byteMeter(totals: ByteTotals): () => Metrics {
  const track = (maConn: MultiaddrConnection): void => {
    const source = maConn.source;
    maConn.source = (async function* counted() {
      for await (const chunk of source) {
        totals.inbound += (chunk as Chunk).byteLength;
        yield chunk;
      }
    })();
    const sink = maConn.sink.bind(maConn);
    maConn.sink = async (src) => {
      await sink(
        (async function* counted() {
          for await (const chunk of src) {
            totals.outbound += (chunk as Chunk).byteLength;
            yield chunk;
          }
        })(),
      );
    };
  };
  const metrics = new Proxy({} as Metrics, {
    get: (_t, prop) => {
      if (prop === "trackMultiaddrConnection") return track;
      if (prop === "then") return undefined;
      if (prop === "traceFunction") return (_name: string, fn: unknown) => fn;
      return NOOP;
    },
  });
  return () => metrics;
}
