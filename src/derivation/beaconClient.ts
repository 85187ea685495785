/**
 * Beacon-API client for L1 blob retrieval (derivation reference §1.14; base/base and kona
 * providers-alloy beacon_client.rs, op-service sources/l1_beacon_client.go):
 *
 * - the slot of an L1 block: `(timestamp − genesis_time) / SECONDS_PER_SLOT`, with `genesis_time`
 *   from `GET /eth/v1/beacon/genesis` and `SECONDS_PER_SLOT` from `GET /eth/v1/config/spec`
 *   (each asked once, then cached);
 * - the blobs of a slot by versioned hash: `GET /eth/v1/beacon/blobs/{slot}?versioned_hashes=…`
 *   (Fulu on; blobs only, in commitment order), each blob's commitment recomputed and its versioned
 *   hash matched; when the node lacks that route, `GET /eth/v1/beacon/blob_sidecars/{slot}?indices=…`
 *   (deprecated; sidecars with commitment and proof, in any order), each sidecar's commitment
 *   hashed and its proof verified.
 *
 * Every blob returned has been verified against its versioned hash (MUST for an untrusted source,
 * specs ecotone/derivation.md). Failures are {@link BlobError}s: a 404 for the slot is
 * SLOT_NOT_FOUND (a missed or orphaned block: derivation resets, as base/base does), a blob that
 * fails KZG is KZG_MISMATCH, no answer is BEACON_UNREACHABLE naming the URL. Requests are counted
 * per endpoint in {@link BeaconClient.counter}.
 */
import { BEACON_MAX_RESPONSE_BYTES, BEACON_REQUEST_TIMEOUT_MS } from "./constants.js";
import { BLOB_BYTES, KZG_POINT_BYTES } from "../chain/constants.js";
import { to0x, toHex } from "../util/bytes.js";
import { isMissingRouteText } from "../util/foreignErrorText.js";
import { BlobError, BlobErrorCode, wrongSize } from "./blobErrors.js";
import { blobToCommitment, kzgBackend, verifyBlobProof, versionedHash, type KzgBackend } from "./kzg.js";
import { isHexData } from "../util/hex.js";

/** A versioned hash to fetch, with the blob's index in its block when known. */
export interface IndexedBlobHash {
  /** Position among all blob hashes of the block's blob transactions (the `blob_sidecars` fallback filters by it). */
  index?: number;
  /** The versioned hash (32 bytes). */
  hash: Uint8Array;
}

/** The endpoints the client calls. */
type BeaconEndpoint = "genesis" | "spec" | "version" | "blobs" | "blobSidecars";

/** Which blob endpoint to use: `auto` asks `blobs` and falls back to `blob_sidecars` when the node lacks the route. */
type BlobEndpointMode = "auto" | "blobs" | "blobSidecars";

function perEndpoint(): Record<BeaconEndpoint, number> {
  return { genesis: 0, spec: 0, version: 0, blobs: 0, blobSidecars: 0 };
}

/** Request counts of one {@link BeaconClient} (plain numbers; a caller turns them into metrics). */
class BeaconRequestCounter {
  /** Requests sent, per endpoint. */
  readonly requests = perEndpoint();
  /** Requests that brought no usable answer (no answer, a status other than 200, a malformed body, a failed blob), per endpoint. */
  readonly failures = perEndpoint();
  /** Times `blobs` answered "no such route" and `blob_sidecars` was asked instead. */
  sidecarFallbacks = 0;

  /** All requests sent. */
  total(): number {
    return Object.values(this.requests).reduce((a, b) => a + b, 0);
  }
}

/** Options of a {@link BeaconClient}. */
interface BeaconClientOptions {
  /** Base URL of the beacon API (`http://host:5052`, a trailing slash is dropped). */
  url: string;
  /** Time limit of one request, body included (default {@link BEACON_REQUEST_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** Largest response body read (default {@link BEACON_MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
  /** Which blob endpoint (default `auto`). */
  blobEndpoint?: BlobEndpointMode;
  /** KZG implementation (default: the process's, `kzg.ts` `kzgBackend()`). */
  kzg?: KzgBackend;
}

/** A response: its status and body text, and the URL (without query) for messages. */
interface RawResponse {
  status: number;
  body: string;
  url: string;
}

/** Sentinel: the node has no `blobs` route. */
const ROUTE_MISSING = Symbol("route missing");

/** The first characters of a body, for error metadata. */
function excerpt(body: string): string {
  return body.length > 300 ? `${body.slice(0, 300)}…` : body;
}

/**
 * Whether a 404 says the route is unknown (the node lacks the endpoint) rather than the block: a
 * body that is no beacon-API error object (a router's plain-text or HTML page, e.g. Go's
 * "404 page not found"), or an error message naming a route, a page or an unknown endpoint
 * (e.g. fastify's "Route GET:/eth/v1/beacon/blobs/1 not found"). A missing block answers
 * `{"code":404,"message":"Block not found"}` or similar.
 */
function missingRoute(body: string): boolean {
  let message: unknown;
  try {
    message = (JSON.parse(body) as { message?: unknown } | null)?.message;
  } catch {
    return true;
  }
  if (typeof message !== "string") return true;
  return isMissingRouteText(message);
}

/** A non-negative safe integer from a beacon-API quantity (decimal string, or number). */
function quantity(v: unknown): number | undefined {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : typeof v === "number" ? v : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** Bytes of a 0x-hex field of exactly `bytes` bytes, or undefined. */
function hexField(v: unknown, bytes: number): Uint8Array | undefined {
  if (!isHexData(v, bytes)) return undefined;
  return new Uint8Array(Buffer.from(v.slice(2), "hex"));
}

/** The `data` member of a beacon-API JSON answer. */
function dataOf(res: RawResponse): unknown {
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch (e) {
    throw badResponse(res.url, `body is not JSON: ${(e as Error).message}`);
  }
  if (typeof json !== "object" || json === null || !("data" in json)) throw badResponse(res.url, "no `data` member");
  return (json as { data: unknown }).data;
}

function badResponse(url: string, reason: string): BlobError {
  return new BlobError({ code: BlobErrorCode.BEACON_BAD_RESPONSE, url, reason }, `beacon API ${url} answered malformed data: ${reason}`);
}

function httpError(res: RawResponse): BlobError {
  return new BlobError(
    { code: BlobErrorCode.BEACON_HTTP_ERROR, url: res.url, status: res.status, body: excerpt(res.body) },
    `beacon API ${res.url} answered HTTP ${res.status}: ${excerpt(res.body)}`,
  );
}

function slotNotFound(slot: number, url: string): BlobError {
  return new BlobError({ code: BlobErrorCode.SLOT_NOT_FOUND, slot: String(slot), url }, `beacon API ${url}: slot ${slot} not found (missed or orphaned block)`);
}

function notServed(slot: number, hash: string, url: string): BlobError {
  return new BlobError(
    { code: BlobErrorCode.NOT_SERVED, slot: String(slot), versionedHash: hash, url },
    `beacon API ${url} did not serve the blob of versioned hash ${hash} for slot ${slot}`,
  );
}

function kzgMismatch(slot: number, hash: string, reason: string): BlobError {
  return new BlobError(
    { code: BlobErrorCode.KZG_MISMATCH, versionedHash: hash, slot: String(slot), reason },
    `blob for versioned hash ${hash} at slot ${slot} fails KZG verification: ${reason}`,
  );
}

/** Reads a body, refusing one over `limit` bytes. */
async function readBody(res: Response, limit: number, url: string): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await res.body?.cancel();
    throw badResponse(url, `body of ${declared} bytes exceeds the ${limit}-byte limit`);
  }
  if (res.body === null) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw badResponse(url, `body exceeds the ${limit}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Client of one beacon node's REST API for blob retrieval (see the module comment). */
export class BeaconClient {
  /** Base URL, without a trailing slash. */
  readonly url: string;
  /** Requests sent and failed, per endpoint. */
  readonly counter = new BeaconRequestCounter();
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly mode: BlobEndpointMode;
  private readonly kzgOption: KzgBackend | undefined;
  /** genesis_time and SECONDS_PER_SLOT, once answered. */
  private readonly cached = new Map<"genesis" | "spec", Promise<number>>();
  /** Set once `blob_sidecars` answered after `blobs` said it has no such route: later calls go there directly. */
  private blobsRouteMissing = false;

  constructor(options: BeaconClientOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.timeoutMs = options.timeoutMs ?? BEACON_REQUEST_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? BEACON_MAX_RESPONSE_BYTES;
    this.mode = options.blobEndpoint ?? "auto";
    this.kzgOption = options.kzg;
  }

  /** The KZG implementation, resolved at the first blob (creating the addon's context takes ~2 s, not at construction). */
  private get kzg(): KzgBackend {
    return this.kzgOption ?? kzgBackend();
  }

  /**
   * Sends one GET and hands the answer to `handle`, counting the request, and counting it failed
   * when it brings no answer, a status other than 200, or `handle` throws.
   * @throws BlobError BEACON_UNREACHABLE when no answer comes (refused, reset, timed out).
   */
  private async request<T>(endpoint: BeaconEndpoint, path: string, query: URLSearchParams | undefined, handle: (res: RawResponse) => T | Promise<T>): Promise<T> {
    const url = `${this.url}${path}`;
    const search = query?.toString() ?? "";
    this.counter.requests[endpoint]++;
    let res: Response;
    let body: string;
    try {
      res = await fetch(search === "" ? url : `${url}?${search}`, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(this.timeoutMs) });
      body = await readBody(res, this.maxResponseBytes, url);
    } catch (e) {
      this.counter.failures[endpoint]++;
      if (e instanceof BlobError) throw e;
      const err = e as Error & { cause?: unknown };
      const reason =
        err.name === "TimeoutError" || err.name === "AbortError" ? `no answer within ${this.timeoutMs} ms` : err.cause instanceof Error ? err.cause.message : err.message;
      throw new BlobError({ code: BlobErrorCode.BEACON_UNREACHABLE, url, reason }, `beacon API ${url} unreachable: ${reason}`, { cause: e });
    }
    if (res.status !== 200) this.counter.failures[endpoint]++;
    try {
      return await handle({ status: res.status, body, url });
    } catch (e) {
      if (res.status === 200) this.counter.failures[endpoint]++;
      throw e;
    }
  }

  /** `data` of a 200 answer; any other status is BEACON_HTTP_ERROR. */
  private static ok(res: RawResponse): unknown {
    if (res.status !== 200) throw httpError(res);
    return dataOf(res);
  }

  /**
   * The `data.<field>` quantity of an endpoint asked once: the answer is kept, a failure is not
   * (the next call asks again).
   */
  private once(endpoint: "genesis" | "spec", path: string, field: string, min: number): Promise<number> {
    let p = this.cached.get(endpoint);
    if (p === undefined) {
      p = this.request(endpoint, path, undefined, (res) => {
        const v = quantity((BeaconClient.ok(res) as Record<string, unknown> | null)?.[field]);
        if (v === undefined || v < min) throw badResponse(res.url, `data.${field} is not an integer ≥ ${min}`);
        return v;
      });
      p.catch(() => this.cached.delete(endpoint));
      this.cached.set(endpoint, p);
    }
    return p;
  }

  /**
   * The beacon chain's genesis time in seconds (`/eth/v1/beacon/genesis`, asked once).
   * @throws BlobError BEACON_UNREACHABLE, BEACON_HTTP_ERROR, BEACON_BAD_RESPONSE.
   */
  genesisTime(): Promise<number> {
    return this.once("genesis", "/eth/v1/beacon/genesis", "genesis_time", 0);
  }

  /**
   * SECONDS_PER_SLOT of the beacon chain (`/eth/v1/config/spec`, asked once).
   * @throws BlobError as {@link genesisTime}.
   */
  secondsPerSlot(): Promise<number> {
    return this.once("spec", "/eth/v1/config/spec", "SECONDS_PER_SLOT", 1);
  }

  /**
   * The node's version string (`/eth/v1/node/version`), for logs and health checks.
   * @throws BlobError as {@link genesisTime}.
   */
  nodeVersion(): Promise<string> {
    return this.request("version", "/eth/v1/node/version", undefined, (res) => {
      const v = (BeaconClient.ok(res) as { version?: unknown } | null)?.version;
      if (typeof v !== "string") throw badResponse(res.url, "data.version is not a string");
      return v;
    });
  }

  /**
   * The slot of an L1 block with timestamp `timestamp`: `(timestamp − genesis_time) / SECONDS_PER_SLOT`, rounded down.
   * @throws BlobError BEFORE_GENESIS for a timestamp before genesis; as {@link genesisTime}.
   */
  async slotAt(timestamp: number | bigint): Promise<number> {
    const [genesis, seconds] = await Promise.all([this.genesisTime(), this.secondsPerSlot()]);
    const t = BigInt(timestamp);
    if (t < BigInt(genesis)) {
      throw new BlobError(
        { code: BlobErrorCode.BEFORE_GENESIS, timestamp: t.toString(), genesisTime: String(genesis) },
        `L1 timestamp ${t} is before the beacon genesis time ${genesis}`,
      );
    }
    return Number((t - BigInt(genesis)) / BigInt(seconds));
  }

  /**
   * The blobs of the L1 block with timestamp `timestamp`, one per entry of `hashes`, in that order.
   * @throws BlobError as {@link slotAt} and {@link blobsAtSlot}.
   */
  async blobsForBlock(timestamp: number | bigint, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[]> {
    if (hashes.length === 0) return [];
    return this.blobsAtSlot(await this.slotAt(timestamp), hashes);
  }

  /**
   * The blobs of `slot`, one per entry of `hashes` and in that order (a hash listed twice gives
   * its blob twice), each verified against its versioned hash.
   * @throws BlobError WRONG_SIZE for a hash not 32 bytes; SLOT_NOT_FOUND for a 404 of the slot;
   * KZG_MISMATCH when the node serves a blob that does not verify; NOT_SERVED when it leaves a
   * requested blob out; BEACON_UNREACHABLE, BEACON_HTTP_ERROR, BEACON_BAD_RESPONSE.
   */
  async blobsAtSlot(slot: number, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[]> {
    for (const h of hashes) if (h.hash.length !== 32) throw wrongSize("versioned hash", 32, h.hash.length);
    if (hashes.length === 0) return [];
    if (this.mode === "blobSidecars" || (this.mode === "auto" && this.blobsRouteMissing)) return this.fromSidecars(slot, hashes);
    const blobs = await this.fromBlobs(slot, hashes);
    if (blobs !== ROUTE_MISSING) return blobs;
    this.counter.sidecarFallbacks++;
    const fromSidecars = await this.fromSidecars(slot, hashes);
    this.blobsRouteMissing = true;
    return fromSidecars;
  }

  /** `GET /eth/v1/beacon/blobs/{slot}?versioned_hashes=…`: blobs only; each one's commitment is recomputed and matched by versioned hash. */
  private async fromBlobs(slot: number, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[] | typeof ROUTE_MISSING> {
    const query = new URLSearchParams();
    for (const hex of new Set(hashes.map((h) => to0x(h.hash)))) query.append("versioned_hashes", hex);
    return this.request("blobs", `/eth/v1/beacon/blobs/${slot}`, query, async (res) => {
      if (res.status === 404) {
        if (!missingRoute(res.body)) throw slotNotFound(slot, res.url);
        if (this.mode === "auto") return ROUTE_MISSING;
      }
      const data = BeaconClient.ok(res);
      if (!Array.isArray(data)) throw badResponse(res.url, "data is not an array");
      const served = data.map((v, i) => {
        const blob = hexField(v, BLOB_BYTES);
        if (blob === undefined) throw badResponse(res.url, `data[${i}] is not a 0x-hex blob of ${BLOB_BYTES} bytes`);
        return blob;
      });
      // Versioned hash of each blob served (undefined: the KZG library refuses the blob, it matches nothing).
      const refused: string[] = [];
      const servedHashes = await Promise.all(
        served.map(async (blob, i) => {
          try {
            return toHex(versionedHash(await blobToCommitment(blob, this.kzg)));
          } catch (e) {
            if (!(e instanceof BlobError && e.code === BlobErrorCode.KZG_INVALID_INPUT)) throw e;
            refused.push(`data[${i}]: ${e.meta.reason as string}`);
            return undefined;
          }
        }),
      );
      const byHash = new Map<string, Uint8Array>();
      servedHashes.forEach((hex, i) => {
        if (hex !== undefined && !byHash.has(hex)) byHash.set(hex, served[i]!);
      });
      const wanted = new Set(hashes.map((h) => toHex(h.hash)));
      const unmatched = servedHashes.filter((hex) => hex !== undefined && !wanted.has(hex)).length;
      return hashes.map((h) => {
        const blob = byHash.get(toHex(h.hash));
        if (blob !== undefined) return blob;
        const hex = to0x(h.hash);
        if (refused.length > 0) throw kzgMismatch(slot, hex, `no commitment exists for a blob served (${refused.join("; ")})`);
        if (unmatched > 0) throw kzgMismatch(slot, hex, `none of the ${served.length} blob(s) served hashes to it, and ${unmatched} match no requested hash`);
        throw notServed(slot, hex, res.url);
      });
    });
  }

  /** `GET /eth/v1/beacon/blob_sidecars/{slot}?indices=…`: sidecars matched by their commitment's versioned hash, each proof verified. */
  private async fromSidecars(slot: number, hashes: readonly IndexedBlobHash[]): Promise<Uint8Array[]> {
    const query = new URLSearchParams();
    // The filter needs every index; without one, ask for all the block's sidecars.
    if (hashes.every((h) => h.index !== undefined)) for (const i of new Set(hashes.map((h) => h.index!))) query.append("indices", String(i));
    return this.request("blobSidecars", `/eth/v1/beacon/blob_sidecars/${slot}`, query, async (res) => {
      if (res.status === 404 && !missingRoute(res.body)) throw slotNotFound(slot, res.url);
      const data = BeaconClient.ok(res);
      if (!Array.isArray(data)) throw badResponse(res.url, "data is not an array");
      const sidecars = data.map((v: unknown, i) => {
        const s = (v ?? {}) as { index?: unknown; blob?: unknown; kzg_commitment?: unknown; kzg_proof?: unknown };
        const index = quantity(s.index);
        const blob = hexField(s.blob, BLOB_BYTES);
        const commitment = hexField(s.kzg_commitment, KZG_POINT_BYTES);
        const proof = hexField(s.kzg_proof, KZG_POINT_BYTES);
        if (index === undefined || blob === undefined || commitment === undefined || proof === undefined) {
          throw badResponse(res.url, `data[${i}] is not a blob sidecar (index, blob, kzg_commitment, kzg_proof)`);
        }
        return { index, blob, commitment, proof, hash: toHex(versionedHash(commitment)) };
      });
      return Promise.all(
        hashes.map(async (h) => {
          const hex = toHex(h.hash);
          const sidecar = sidecars.find((s) => s.hash === hex && s.index === h.index) ?? sidecars.find((s) => s.hash === hex);
          if (sidecar === undefined) {
            if (h.index !== undefined && sidecars.some((s) => s.index === h.index)) {
              throw kzgMismatch(slot, to0x(h.hash), `the sidecar of index ${h.index} carries a commitment of another versioned hash`);
            }
            throw notServed(slot, to0x(h.hash), res.url);
          }
          let ok: boolean;
          try {
            ok = await verifyBlobProof(sidecar.blob, sidecar.commitment, sidecar.proof, this.kzg);
          } catch (e) {
            if (!(e instanceof BlobError && e.code === BlobErrorCode.KZG_INVALID_INPUT)) throw e;
            throw kzgMismatch(slot, to0x(h.hash), e.meta.reason as string);
          }
          if (!ok) throw kzgMismatch(slot, to0x(h.hash), `the KZG proof of sidecar ${sidecar.index} does not verify its blob against its commitment`);
          return sidecar.blob;
        }),
      );
    });
  }
}
