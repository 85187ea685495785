/**
 * A beacon-API shim for local rollups and tests: a small HTTP server (on 127.0.0.1 unless told
 * otherwise) serving the endpoints blob retrieval uses, from blobs held in memory by slot
 * (derivation reference §4.4: no off-the-shelf L1 devnet serves `/eth/v1/config/spec` and
 * slot-indexed blobs together). basalt's own local L1 (`--network devnet-l1`) serves its blobs
 * through it.
 *
 * - `GET /eth/v1/beacon/genesis`, `/eth/v1/config/spec` (SECONDS_PER_SLOT), `/eth/v1/node/version`;
 * - `GET /eth/v1/beacon/blobs/{slot}[?versioned_hashes=…]`: the slot's blobs in commitment order,
 *   only the requested ones when filtered;
 * - `GET /eth/v1/beacon/blob_sidecars/{slot}[?indices=…]` (deprecated in the beacon API, kept for
 *   the fallback path): sidecars with index, blob, commitment and proof.
 *
 * A slot never put answers 404 "Block not found" (a missed slot); an unknown path, or a blob route
 * switched off in {@link BeaconShim.routes}, answers 404 naming the route, as a beacon node without
 * that endpoint does. Query lists are accepted repeated (`a=1&a=2`) or comma-separated (`a=1,2`).
 * L1 blocks line up with slots when their timestamps are `genesisTime + slot × secondsPerSlot`
 * ({@link BeaconShim.timestampOf}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BEACON_SHIM_SECONDS_PER_SLOT } from "./constants.js";
import { to0x } from "../util/bytes.js";
import { commitBlob, type CommittedBlob } from "./kzg.js";

/** Options of {@link BeaconShim.start}. */
interface BeaconShimOptions {
  /** Beacon genesis time in seconds (default 0: slot = timestamp / secondsPerSlot). */
  genesisTime?: number;
  /** SECONDS_PER_SLOT (default {@link BEACON_SHIM_SECONDS_PER_SLOT}, mainnet's 12). */
  secondsPerSlot?: number;
  /** Port (default 0: any free port). */
  port?: number;
  /** Listen address (default 127.0.0.1; basalt's devnet-l1 passes `--beacon.addr`). */
  host?: string;
  /** What `/eth/v1/node/version` reports. */
  version?: string;
}

/** The routes the shim counts requests of (a blob route switched off still counts as itself); `other` is every unknown path. */
type BeaconShimRoute = "genesis" | "spec" | "version" | "blobs" | "blobSidecars" | "other";

const ZERO_ROOT = to0x(new Uint8Array(32));
/** Depth of a sidecar's commitment inclusion proof (deneb KZG_COMMITMENT_INCLUSION_PROOF_DEPTH). */
const INCLUSION_PROOF_DEPTH = 17;

/** The values of a list query parameter, given repeated or comma-separated. */
function listParam(url: URL, name: string): string[] {
  return url.searchParams
    .getAll(name)
    .flatMap((v) => v.split(","))
    .filter((v) => v !== "");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function error(res: ServerResponse, status: number, message: string): void {
  send(res, status, { code: status, message });
}

/** A running beacon-API shim (see the module comment). Close it with {@link close}. */
export class BeaconShim {
  /** Base URL, `http://<host>:<port>`. */
  readonly url: string;
  /** Switches for the blob routes: a route switched off answers 404 as an unknown route. */
  readonly routes = { blobs: true, blobSidecars: true };
  /** Requests received per route. */
  readonly requests: Record<BeaconShimRoute, number> = { genesis: 0, spec: 0, version: 0, blobs: 0, blobSidecars: 0, other: 0 };
  readonly genesisTime: number;
  readonly secondsPerSlot: number;
  private readonly version: string;
  private readonly slots = new Map<number, CommittedBlob[]>();

  private constructor(
    private readonly server: Server,
    options: BeaconShimOptions,
  ) {
    const host = options.host ?? "127.0.0.1";
    this.url = `http://${host.includes(":") ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
    this.genesisTime = options.genesisTime ?? 0;
    this.secondsPerSlot = options.secondsPerSlot ?? BEACON_SHIM_SECONDS_PER_SLOT;
    this.version = options.version ?? "basalt-beacon-shim/0.1.0";
    server.on("request", (req, res) => this.handle(req, res));
  }

  /** Starts a shim listening on `options.host` (default 127.0.0.1). */
  static async start(options: BeaconShimOptions = {}): Promise<BeaconShim> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: options.port ?? 0, host: options.host ?? "127.0.0.1", exclusive: true }, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return new BeaconShim(server, options);
  }

  /** The slot of an L1 timestamp: `(timestamp − genesisTime) / secondsPerSlot`, rounded down. */
  slotOf(timestamp: number): number {
    return Math.floor((timestamp - this.genesisTime) / this.secondsPerSlot);
  }

  /** The timestamp of a slot's start, for an L1 block meant to carry that slot's blobs. */
  timestampOf(slot: number): number {
    return this.genesisTime + slot * this.secondsPerSlot;
  }

  /**
   * Stores `blobs` as the blobs of `slot`, in this (commitment) order, with their commitments and
   * proofs; replaces what the slot held. An empty list makes the slot exist without blobs.
   * @throws BlobError as `kzg.ts` `commitBlob` (a blob not 131,072 bytes, or non-canonical).
   */
  async put(slot: number, blobs: readonly Uint8Array[]): Promise<CommittedBlob[]> {
    const committed = await Promise.all(blobs.map((b) => commitBlob(b)));
    this.slots.set(slot, committed);
    return committed;
  }

  /** Stores blobs as given, unchecked: a test serves a blob that does not match its commitment this way. */
  putCommitted(slot: number, blobs: readonly CommittedBlob[]): void {
    this.slots.set(slot, [...blobs]);
  }

  /** Forgets a slot: it answers 404 again, as a missed slot. */
  delete(slot: number): void {
    this.slots.delete(slot);
  }

  /** Stops listening and drops open connections. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? "/", this.url);
    const path = url.pathname.replace(/\/+$/, "");
    const blobs = /^\/eth\/v1\/beacon\/blobs\/([^/]+)$/.exec(path);
    const sidecars = /^\/eth\/v1\/beacon\/blob_sidecars\/([^/]+)$/.exec(path);
    const route: BeaconShimRoute =
      path === "/eth/v1/beacon/genesis"
        ? "genesis"
        : path === "/eth/v1/config/spec"
          ? "spec"
          : path === "/eth/v1/node/version"
            ? "version"
            : blobs !== null
              ? "blobs"
              : sidecars !== null
                ? "blobSidecars"
                : "other";
    this.requests[route]++;
    const off = (route === "blobs" && !this.routes.blobs) || (route === "blobSidecars" && !this.routes.blobSidecars);
    if (route === "other" || off) return error(res, 404, `Route ${req.method ?? "GET"}:${url.pathname} not found`);
    if (req.method !== "GET") return error(res, 405, `Method ${req.method ?? ""} not allowed`);
    switch (route) {
      case "genesis":
        return send(res, 200, { data: { genesis_time: String(this.genesisTime), genesis_validators_root: ZERO_ROOT, genesis_fork_version: "0x00000000" } });
      case "spec":
        return send(res, 200, { data: { SECONDS_PER_SLOT: String(this.secondsPerSlot) } });
      case "version":
        return send(res, 200, { data: { version: this.version } });
      case "blobs":
        return this.serveBlobs(res, blobs![1]!, url);
      case "blobSidecars":
        return this.serveSidecars(res, sidecars![1]!, url);
    }
  }

  /** The stored blobs of a block id (a decimal slot), or undefined after answering 400/404. */
  private stored(res: ServerResponse, blockId: string): CommittedBlob[] | undefined {
    if (!/^\d+$/.test(blockId)) {
      error(res, 400, `Invalid block ID: ${blockId}`);
      return undefined;
    }
    const blobs = this.slots.get(Number(blockId));
    if (blobs === undefined) error(res, 404, "Block not found");
    return blobs;
  }

  private serveBlobs(res: ServerResponse, blockId: string, url: URL): void {
    const wanted = listParam(url, "versioned_hashes").map((h) => h.toLowerCase());
    if (wanted.some((h) => !/^0x[0-9a-f]{64}$/.test(h))) return error(res, 400, "Invalid versioned_hashes");
    const blobs = this.stored(res, blockId);
    if (blobs === undefined) return;
    const selected = wanted.length === 0 ? blobs : blobs.filter((b) => wanted.includes(to0x(b.versionedHash)));
    send(res, 200, { execution_optimistic: false, finalized: false, data: selected.map((b) => to0x(b.blob)) });
  }

  private serveSidecars(res: ServerResponse, blockId: string, url: URL): void {
    const indices = listParam(url, "indices");
    if (indices.some((i) => !/^\d+$/.test(i))) return error(res, 400, "Invalid indices");
    const blobs = this.stored(res, blockId);
    if (blobs === undefined) return;
    const header = {
      message: { slot: blockId, proposer_index: "0", parent_root: ZERO_ROOT, state_root: ZERO_ROOT, body_root: ZERO_ROOT },
      signature: to0x(new Uint8Array(96)),
    };
    const data = blobs
      .map((b, index) => ({
        index: String(index),
        blob: to0x(b.blob),
        kzg_commitment: to0x(b.commitment),
        kzg_proof: to0x(b.proof),
        signed_block_header: header,
        kzg_commitment_inclusion_proof: Array.from({ length: INCLUSION_PROOF_DEPTH }, () => ZERO_ROOT),
      }))
      .filter((s) => indices.length === 0 || indices.includes(s.index));
    send(res, 200, { execution_optimistic: false, finalized: false, data });
  }
}
