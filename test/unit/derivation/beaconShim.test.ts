/**
 * The beacon-API shim (src/derivation/beaconShim.ts) as any HTTP client sees it: response shapes
 * of the beacon API, both forms of list query, and its 400/404/405 answers. On 127.0.0.1, closed
 * in afterAll.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BeaconShim } from "../../../src/derivation/beaconShim.js";
import { encodeBlob } from "../../../src/derivation/blobCodec.js";
import type { CommittedBlob } from "../../../src/derivation/kzg.js";
import { to0x } from "../../../src/util/bytes.js";

let shim: BeaconShim;
let stored: CommittedBlob[];

async function get(path: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${shim.url}${path}`);
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  shim = await BeaconShim.start({ genesisTime: 100, secondsPerSlot: 6, version: "shim-test" });
  stored = await shim.put(3, ["a", "b", "c"].map((s) => encodeBlob(new TextEncoder().encode(s))));
});

afterAll(() => shim.close());

describe("beacon-API shim", () => {
  it("serves genesis, spec and version as the beacon API shapes them (quantities as decimal strings)", async () => {
    expect((await get("/eth/v1/beacon/genesis")).body.data.genesis_time).toBe("100");
    expect((await get("/eth/v1/config/spec")).body.data.SECONDS_PER_SLOT).toBe("6");
    expect((await get("/eth/v1/node/version")).body).toEqual({ data: { version: "shim-test" } });
    expect(shim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect([shim.slotOf(shim.timestampOf(3)), shim.slotOf(shim.timestampOf(3) + 5)]).toEqual([3, 3]);
  });

  it("blobs: all in commitment order, or those asked, by repeated or comma-separated versioned_hashes", async () => {
    const all = await get("/eth/v1/beacon/blobs/3");
    expect(all.body).toMatchObject({ execution_optimistic: false, finalized: false });
    expect(all.body.data).toEqual(stored.map((b) => to0x(b.blob)));
    const [h0, , h2] = stored.map((b) => to0x(b.versionedHash));
    for (const q of [`versioned_hashes=${h2}&versioned_hashes=${h0}`, `versioned_hashes=${h2},${h0}`]) {
      expect((await get(`/eth/v1/beacon/blobs/3?${q}`)).body.data).toEqual([to0x(stored[0]!.blob), to0x(stored[2]!.blob)]);
    }
  });

  it("blob_sidecars: index, blob, commitment and proof, filtered by indices", async () => {
    const { body } = await get("/eth/v1/beacon/blob_sidecars/3?indices=2,0");
    expect(body.data.map((s: { index: string }) => s.index)).toEqual(["0", "2"]);
    expect(body.data[1]).toMatchObject({ blob: to0x(stored[2]!.blob), kzg_commitment: to0x(stored[2]!.commitment), kzg_proof: to0x(stored[2]!.proof) });
    expect(body.data[1].kzg_commitment_inclusion_proof).toHaveLength(17);
  });

  it("answers 404 for a missing slot, 404 naming the route for an unknown or switched-off route, 400 and 405 for bad requests", async () => {
    expect(await get("/eth/v1/beacon/blobs/4")).toEqual({ status: 404, body: { code: 404, message: "Block not found" } });
    expect((await get("/eth/v1/beacon/nothing")).body.message).toBe("Route GET:/eth/v1/beacon/nothing not found");
    shim.routes.blobSidecars = false;
    expect(await get("/eth/v1/beacon/blob_sidecars/3")).toEqual({ status: 404, body: { code: 404, message: "Route GET:/eth/v1/beacon/blob_sidecars/3 not found" } });
    shim.routes.blobSidecars = true;
    expect((await get("/eth/v1/beacon/blobs/head")).status).toBe(400);
    expect((await get("/eth/v1/beacon/blobs/3?versioned_hashes=0x12")).status).toBe(400);
    expect((await fetch(`${shim.url}/eth/v1/beacon/genesis`, { method: "POST" })).status).toBe(405);
    shim.delete(3);
    expect((await get("/eth/v1/beacon/blobs/3")).status).toBe(404);
  });
});
