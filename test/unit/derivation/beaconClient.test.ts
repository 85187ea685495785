/**
 * The beacon-API client (src/derivation/beaconClient.ts) against the beacon-API shim
 * (src/derivation/beaconShim.ts) over loopback, with real KZG: blobs by versioned hash in any
 * order, the blob_sidecars fallback, a blob failing KZG, a missing slot, a server that is down or
 * silent or malformed, and the request counts. Every server listens on 127.0.0.1 and is closed in
 * afterAll.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOB_BYTES } from "../../../src/chain/constants.js";
import { decodeBlob, encodeBlob } from "../../../src/derivation/blobCodec.js";
import { BlobError, BlobErrorCode } from "../../../src/derivation/blobErrors.js";
import { BeaconClient, type IndexedBlobHash } from "../../../src/derivation/beaconClient.js";
import { BeaconShim } from "../../../src/derivation/beaconShim.js";
import type { CommittedBlob } from "../../../src/derivation/kzg.js";
import { to0x } from "../../../src/util/bytes.js";

const GENESIS = 1_606_824_023; // Ethereum mainnet's beacon genesis time
const SLOT = 5;
const EMPTY_SLOT = 7;

const payloads = ["first batch", "second batch", "third batch"].map((s) => new TextEncoder().encode(s.repeat(500)));

let shim: BeaconShim;
/** A second shim whose `blobs` route is off, as a beacon node from before Fulu. */
let oldShim: BeaconShim;
let committed: CommittedBlob[];
const servers: Server[] = [];

/** The indexed versioned hashes of the stored blobs `is` (index = position in the slot). */
function hashes(...is: number[]): IndexedBlobHash[] {
  return is.map((i) => ({ index: i, hash: committed[i]!.versionedHash }));
}

/** Asserts the blobs are `want`, in order (byte comparison; vitest's deep equality is slow on 128 KiB arrays). */
function sameBlobs(got: Uint8Array[], want: Uint8Array[]): void {
  expect(got.length).toBe(want.length);
  got.forEach((b, i) => expect(Buffer.from(b).equals(want[i]!), `blob ${i}`).toBe(true));
}

/** The BlobError a promise rejects with. */
async function rejection(p: Promise<unknown>): Promise<BlobError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(BlobError);
    return e as BlobError;
  }
  throw new Error("expected a BlobError");
}

/** A raw HTTP server on 127.0.0.1 (a silent or broken beacon node), closed in afterAll. */
async function rawServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  shim = await BeaconShim.start({ genesisTime: GENESIS, secondsPerSlot: 12 });
  committed = await shim.put(SLOT, payloads.map(encodeBlob));
  await shim.put(EMPTY_SLOT, []);
  oldShim = await BeaconShim.start({ genesisTime: GENESIS });
  oldShim.routes.blobs = false;
  oldShim.putCommitted(SLOT, committed);
});

afterAll(async () => {
  await Promise.all([shim.close(), oldShim.close()]);
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe("genesis, spec, slots", () => {
  it("reads genesis_time and SECONDS_PER_SLOT once, and maps L1 timestamps to slots", async () => {
    const client = new BeaconClient({ url: `${shim.url}/` });
    const before = { ...shim.requests };
    expect(await client.genesisTime()).toBe(GENESIS);
    expect(await client.secondsPerSlot()).toBe(12);
    expect(await client.slotAt(GENESIS + SLOT * 12)).toBe(SLOT);
    expect(await client.slotAt(BigInt(GENESIS + SLOT * 12 + 11))).toBe(SLOT);
    expect(await client.slotAt(GENESIS)).toBe(0);
    expect(client.counter.requests).toMatchObject({ genesis: 1, spec: 1 });
    expect(shim.requests.genesis - before.genesis).toBe(1);
    expect(shim.requests.spec - before.spec).toBe(1);
    expect(await client.nodeVersion()).toBe("basalt-beacon-shim/0.1.0");
  });

  it("a timestamp before genesis: BEFORE_GENESIS", async () => {
    const e = await rejection(new BeaconClient({ url: shim.url }).slotAt(GENESIS - 1));
    expect(e.type).toEqual({ code: BlobErrorCode.BEFORE_GENESIS, timestamp: String(GENESIS - 1), genesisTime: String(GENESIS) });
  });
});

describe("blobs by versioned hash (/eth/v1/beacon/blobs)", () => {
  it("returns the blobs in the order asked, whatever the order served, a repeated hash twice; they decode to the payloads", async () => {
    const client = new BeaconClient({ url: shim.url });
    const blobs = await client.blobsForBlock(GENESIS + SLOT * 12 + 3, hashes(2, 0, 2));
    sameBlobs(blobs, [committed[2]!.blob, committed[0]!.blob, committed[2]!.blob]);
    expect(blobs.map((b) => new TextDecoder().decode(decodeBlob(b)))).toEqual([2, 0, 2].map((i) => new TextDecoder().decode(payloads[i])));
    expect(client.counter.requests).toMatchObject({ blobs: 1, blobSidecars: 0 });
  });

  it("fetches a subset, and needs no index", async () => {
    const client = new BeaconClient({ url: shim.url });
    sameBlobs(await client.blobsAtSlot(SLOT, [{ hash: committed[1]!.versionedHash }]), [committed[1]!.blob]);
  });

  it("asks nothing for no hashes", async () => {
    const client = new BeaconClient({ url: shim.url });
    expect(await client.blobsForBlock(GENESIS, [])).toEqual([]);
    expect(client.counter.total()).toBe(0);
  });

  it("a hash the slot does not hold: NOT_SERVED", async () => {
    const e = await rejection(new BeaconClient({ url: shim.url }).blobsAtSlot(EMPTY_SLOT, hashes(0)));
    expect(e.type).toEqual({ code: BlobErrorCode.NOT_SERVED, slot: String(EMPTY_SLOT), versionedHash: to0x(committed[0]!.versionedHash), url: `${shim.url}/eth/v1/beacon/blobs/${EMPTY_SLOT}` });
  });
});

describe("fallback to /eth/v1/beacon/blob_sidecars", () => {
  it("when blobs answers 404 for the route: sidecars, in the order asked, and straight there afterwards", async () => {
    const client = new BeaconClient({ url: oldShim.url });
    sameBlobs(await client.blobsAtSlot(SLOT, hashes(2, 0)), [committed[2]!.blob, committed[0]!.blob]);
    expect(client.counter.sidecarFallbacks).toBe(1);
    expect(client.counter.requests).toMatchObject({ blobs: 1, blobSidecars: 1 });
    expect(client.counter.failures).toMatchObject({ blobs: 1, blobSidecars: 0 });
    // Without indices it asks for all the slot's sidecars and picks by commitment.
    sameBlobs(await client.blobsAtSlot(SLOT, [{ hash: committed[1]!.versionedHash }]), [committed[1]!.blob]);
    expect(client.counter.requests).toMatchObject({ blobs: 1, blobSidecars: 2 });
    expect(client.counter.sidecarFallbacks).toBe(1);
  });

  it("the client's counts are the requests the server saw", async () => {
    const server = await BeaconShim.start({ genesisTime: GENESIS });
    try {
      server.routes.blobs = false;
      server.putCommitted(SLOT, committed);
      const client = new BeaconClient({ url: server.url });
      await client.blobsForBlock(GENESIS + SLOT * 12, hashes(1));
      await client.blobsForBlock(GENESIS + SLOT * 12, hashes(0, 2));
      await rejection(client.blobsAtSlot(99, hashes(0)));
      await client.nodeVersion();
      const { other, ...seen } = server.requests;
      expect(other).toBe(0);
      expect(client.counter.requests).toEqual(seen);
      // blobs once (no route, then never again), sidecars for each of the three calls.
      expect(seen).toEqual({ genesis: 1, spec: 1, version: 1, blobs: 1, blobSidecars: 3 });
      expect(client.counter.total()).toBe(7);
    } finally {
      await server.close();
    }
  });

  it("blobEndpoint 'blobs' does not fall back: the route's 404 is BEACON_HTTP_ERROR", async () => {
    const e = await rejection(new BeaconClient({ url: oldShim.url, blobEndpoint: "blobs" }).blobsAtSlot(SLOT, hashes(0)));
    expect(e.type).toMatchObject({ code: BlobErrorCode.BEACON_HTTP_ERROR, status: 404 });
  });
});

describe("blobs failing KZG", () => {
  const CORRUPT_SLOT = 9;
  beforeAll(() => {
    const flipped = committed[0]!.blob.slice();
    flipped[4_000]! ^= 0x01;
    const nonCanonical = new Uint8Array(BLOB_BYTES).fill(0xff);
    for (const s of [shim, oldShim]) {
      s.putCommitted(CORRUPT_SLOT, [{ ...committed[0]!, blob: flipped }, { ...committed[1]!, blob: nonCanonical }, committed[2]!]);
    }
  });

  it("blobs: a blob whose recomputed versioned hash differs is KZG_MISMATCH", async () => {
    const client = new BeaconClient({ url: shim.url });
    const e = await rejection(client.blobsAtSlot(CORRUPT_SLOT, hashes(0)));
    expect(e.type).toMatchObject({ code: BlobErrorCode.KZG_MISMATCH, versionedHash: to0x(committed[0]!.versionedHash), slot: String(CORRUPT_SLOT) });
    expect(client.counter.failures.blobs).toBe(1);
  });

  it("blobs: a blob no commitment exists for is KZG_MISMATCH naming the library's refusal", async () => {
    const e = await rejection(new BeaconClient({ url: shim.url }).blobsAtSlot(CORRUPT_SLOT, hashes(1)));
    expect(e.code).toBe(BlobErrorCode.KZG_MISMATCH);
    expect(e.message).toMatch(/no commitment exists/);
  });

  it("the good blob of the same slot still comes", async () => {
    sameBlobs(await new BeaconClient({ url: shim.url }).blobsAtSlot(CORRUPT_SLOT, hashes(2)), [committed[2]!.blob]);
  });

  it("blob_sidecars: a sidecar whose proof does not verify is KZG_MISMATCH", async () => {
    for (const i of [0, 1]) {
      const e = await rejection(new BeaconClient({ url: oldShim.url }).blobsAtSlot(CORRUPT_SLOT, hashes(i)));
      expect(e.type).toMatchObject({ code: BlobErrorCode.KZG_MISMATCH, versionedHash: to0x(committed[i]!.versionedHash) });
    }
  });
});

describe("failures", () => {
  it("a slot the node does not have: SLOT_NOT_FOUND, on either endpoint", async () => {
    for (const [url, endpoint] of [
      [shim.url, "blobs"],
      [oldShim.url, "blobSidecars"],
    ] as const) {
      const client = new BeaconClient({ url, blobEndpoint: endpoint });
      const e = await rejection(client.blobsAtSlot(99, hashes(0)));
      expect(e.type).toMatchObject({ code: BlobErrorCode.SLOT_NOT_FOUND, slot: "99" });
      expect(client.counter.failures[endpoint]).toBe(1);
    }
  });

  it("a server that is down: BEACON_UNREACHABLE naming the URL", async () => {
    const gone = await BeaconShim.start();
    const url = gone.url;
    await gone.close();
    const client = new BeaconClient({ url });
    const e = await rejection(client.genesisTime());
    expect(e.code).toBe(BlobErrorCode.BEACON_UNREACHABLE);
    expect(e.message).toContain(`${url}/eth/v1/beacon/genesis`);
    expect(e.message).toMatch(/ECONNREFUSED/);
    expect(client.counter.failures.genesis).toBe(1);
    // Not cached: the next call asks again.
    await rejection(client.genesisTime());
    expect(client.counter.requests.genesis).toBe(2);
  });

  it("a server that never answers: BEACON_UNREACHABLE once the timeout passes", async () => {
    const url = await rawServer(() => undefined);
    const e = await rejection(new BeaconClient({ url, timeoutMs: 200 }).secondsPerSlot());
    expect(e.type).toEqual({ code: BlobErrorCode.BEACON_UNREACHABLE, url: `${url}/eth/v1/config/spec`, reason: "no answer within 200 ms" });
  });

  it("malformed answers: BEACON_BAD_RESPONSE", async () => {
    const url = await rawServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      if (req.url?.startsWith("/eth/v1/beacon/genesis")) res.end("{not json");
      else if (req.url?.startsWith("/eth/v1/config/spec")) res.end(JSON.stringify({ data: { SECONDS_PER_SLOT: "0" } }));
      else res.end(JSON.stringify({ data: ["0x1234"] }));
    });
    const client = new BeaconClient({ url });
    expect((await rejection(client.genesisTime())).code).toBe(BlobErrorCode.BEACON_BAD_RESPONSE);
    expect((await rejection(client.secondsPerSlot())).message).toMatch(/SECONDS_PER_SLOT/);
    expect((await rejection(client.blobsAtSlot(1, hashes(0)))).message).toMatch(/data\[0\] is not a 0x-hex blob/);
  });

  it("an answer over the size limit: BEACON_BAD_RESPONSE", async () => {
    const e = await rejection(new BeaconClient({ url: shim.url, maxResponseBytes: 10_000 }).blobsAtSlot(SLOT, hashes(0)));
    expect(e.code).toBe(BlobErrorCode.BEACON_BAD_RESPONSE);
    expect(e.message).toMatch(/10000-byte limit/);
  });

  it("a versioned hash not 32 bytes: WRONG_SIZE, nothing asked", async () => {
    const client = new BeaconClient({ url: shim.url });
    expect((await rejection(client.blobsAtSlot(SLOT, [{ hash: new Uint8Array(20) }]))).code).toBe(BlobErrorCode.WRONG_SIZE);
    expect(client.counter.total()).toBe(0);
  });
});
