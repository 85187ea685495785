/**
 * Bench: KZG per blob with each implementation of src/derivation/kzg.ts — context creation,
 * commitment (what checking a `/eth/v1/beacon/blobs` answer costs per blob), proof, and proof
 * verification (what checking a `blob_sidecars` answer costs per blob). Blobs are OP-encoded
 * random payloads. `npm run build && node dist/bench/kzg.js` (not part of `npm run bench`).
 */
import { randomBytes } from "node:crypto";
import { BLOB_MAX_PAYLOAD_BYTES } from "../src/config/constants.js";
import { encodeBlob } from "../src/derivation/blobCodec.js";
import { blobToCommitment, computeBlobProof, loadKzgBackend, verifyBlobProof, type KzgBackendName } from "../src/derivation/kzg.js";

const BLOBS = 6;
const blobs = Array.from({ length: BLOBS }, () => encodeBlob(randomBytes(BLOB_MAX_PAYLOAD_BYTES)));

/** Mean milliseconds of `f` over the blobs, `rounds` times each. */
async function perBlob(rounds: number, f: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (let i = 0; i < BLOBS; i++) await f(i);
  return (performance.now() - t0) / (rounds * BLOBS);
}

for (const [name, rounds] of [
  ["rust-eth-kzg", 5],
  ["micro-eth-signer", 1],
] as [KzgBackendName, number][]) {
  const t0 = performance.now();
  const backend = loadKzgBackend(name);
  const loadMs = performance.now() - t0;
  if (backend === undefined) {
    console.log(JSON.stringify({ bench: "kzg", backend: name, loaded: false }));
    continue;
  }
  await blobToCommitment(blobs[0]!, backend); // warm-up
  const commitments: Uint8Array[] = [];
  const commitMs = await perBlob(rounds, async (i) => (commitments[i] = await blobToCommitment(blobs[i]!, backend)));
  const proofs: Uint8Array[] = [];
  const proofMs = await perBlob(rounds, async (i) => (proofs[i] = await computeBlobProof(blobs[i]!, commitments[i]!, backend)));
  const verifyMs = await perBlob(rounds, (i) => verifyBlobProof(blobs[i]!, commitments[i]!, proofs[i]!, backend));
  const t1 = performance.now();
  await Promise.all(blobs.map((b) => blobToCommitment(b, backend)));
  const parallelCommitMs = (performance.now() - t1) / BLOBS;
  const round = (x: number): number => Number(x.toFixed(1));
  console.log(
    JSON.stringify({
      bench: "kzg",
      backend: name,
      loadMs: round(loadMs),
      commitMsPerBlob: round(commitMs),
      proofMsPerBlob: round(proofMs),
      verifyProofMsPerBlob: round(verifyMs),
      commitMsPerBlobConcurrent: round(parallelCommitMs),
    }),
  );
}
