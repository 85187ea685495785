/**
 * Datadir snapshots: one file holding a consistent copy of a datadir's LMDB environment, and of
 * its historical-proofs store when there is one, for `basalt snapshot export|import`.
 *
 * File layout:
 * - magic `BASALT-SNAPSHOT` (15 bytes ASCII), format version (1 byte): 1 for the chain alone, 2
 *   when a proofs store follows (both are read);
 * - header length (4 bytes, big-endian), sha256 of the header (32 bytes), the header (UTF-8 JSON,
 *   {@link SnapshotHeader}): chain id, genesis hash, head number/hash/state root, creation time,
 *   payload compression, sizes and the sha256 of the payload, and (version 2) the proofs
 *   section's window, entry counts, sizes and sha256;
 * - the payload: the LMDB data file (`data.mdb`, a compacting copy) compressed as the header says
 *   (brotli when written by this code; gzip and none are read too);
 * - (version 2) the proofs payload: the proofs store's dump (`src/proofs/dump.ts`), compressed.
 *
 * Export copies the environment with LMDB's own copy (`mdb_env_copy2` with compaction, inside one
 * read transaction), so it is consistent while a node is writing; the head recorded in the header
 * is read from that copy. The proofs store is dumped BEFORE the chain is copied, so its window
 * ends at or below the copy's head. Import checks every checksum before it writes anything,
 * decompresses into the datadir, then has the imported chain verified, then restores and verifies
 * the proofs store. Reading the chain (its head, state root and genesis) and the proofs store
 * need the layers above storage: the caller passes those steps in (`src/ops/snapshot.ts`).
 */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Readable, Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants as zc, createBrotliCompress, createBrotliDecompress, createGunzip } from "node:zlib";
import { TypedError } from "../util/errors.js";
import { ChainStore } from "./store.js";
import { SNAPSHOT_MAX_HEADER_BYTES, SNAPSHOT_BROTLI_QUALITY } from "./constants.js";

/** File magic: identifies a basalt snapshot. */
const SNAPSHOT_MAGIC = "BASALT-SNAPSHOT";
/** Format version of a snapshot of the chain alone (what basalt wrote before proofs were carried, and still writes without them). */
const SNAPSHOT_FORMAT_VERSION_CHAIN = 1;
/** Format version of a snapshot carrying a proofs store after the chain (bump on any layout change). */
const SNAPSHOT_FORMAT_VERSION = 2;
/** Bytes before the header: magic, version, header length, header sha256. */
const PREFIX_BYTES = SNAPSHOT_MAGIC.length + 1 + 4 + 32;
/** Name of LMDB's data file inside the environment directory (`<datadir>/chain`). */
const LMDB_DATA_FILE = "data.mdb";
/** Name of the store's environment directory inside a datadir. */
const CHAIN_DIR = "chain";

/** Compression of the payload. */
type SnapshotCompression = "brotli" | "gzip" | "none";

/** The JSON header of a snapshot file. */
export interface SnapshotHeader {
  formatVersion: number;
  /** Decimal chain id. */
  chainId: string;
  /** 0x genesis block hash. */
  genesisHash: string;
  head: { number: string; hash: string; stateRoot: string };
  /** ISO-8601 time of the export. */
  createdAt: string;
  compression: SnapshotCompression;
  /** Size of the payload as stored (compressed). */
  payloadBytes: number;
  /** Size of the LMDB data file once decompressed. */
  dataBytes: number;
  /** sha256 (hex) of the payload as stored. */
  payloadSha256: string;
  /** The proofs store carried after the chain's payload (format version 2). */
  proofs?: SnapshotProofsHeader;
}

/** A block the header names: decimal number, 0x hash. */
export interface SnapshotBlock {
  number: string;
  hash: string;
}

/** What a snapshot header records of the proofs store it carries. */
export interface SnapshotProofsHeader {
  /** The blocks the store answers for. */
  window: { earliest: SnapshotBlock; latest: SnapshotBlock };
  /** Entries dumped, per column family. */
  entries: Record<string, number>;
  compression: SnapshotCompression;
  /** Size of the proofs payload as stored (compressed); it follows the chain's payload. */
  payloadBytes: number;
  /** Size of the dump once decompressed. */
  dataBytes: number;
  /** sha256 (hex) of the proofs payload as stored. */
  payloadSha256: string;
}

/** What the proofs section's dump reports: the header's record of it less the payload's sizes and checksum. */
export type SnapshotProofsInfo = Pick<SnapshotProofsHeader, "window" | "entries">;

/** The proofs store's part of an export (src/ops/snapshot.ts fills it in from src/proofs/). */
export interface ExportProofsSection {
  /** Writes the store's dump into `sink` and ends it; called before the chain is copied. */
  dump(sink: Writable): Promise<SnapshotProofsInfo>;
  /** Checks the dumped store against the chain copy at `datadir` (a reorg in between); throws to refuse the export. */
  check(datadir: string, info: SnapshotProofsInfo): Promise<void>;
}

/** The proofs store's part of an import. */
export interface ImportProofsSection {
  /** Where the store goes (`<datadir>/proofs`, or `--proofs.path`). */
  dir: string;
  /** Builds a new store at `dir` from the dump read from `source` (decompressed). */
  restore(source: Readable, dir: string, info: SnapshotProofsHeader): Promise<void>;
  /** Verifies the store restored at `dir` against the imported chain in `datadir`; throws {@link SnapshotError} to refuse the import. */
  verify(dir: string, datadir: string, info: SnapshotProofsHeader, file: string): Promise<void>;
}

/** A {@link SnapshotError}'s stable code with its metadata. */
type SnapshotErrorType =
  | { code: "SNAPSHOT_NOT_A_SNAPSHOT"; file: string }
  | { code: "SNAPSHOT_TRUNCATED"; file: string; expected?: string; actual?: string }
  | { code: "SNAPSHOT_VERSION"; file: string; expected: string; actual: string }
  | { code: "SNAPSHOT_CHECKSUM"; file: string; expected?: string; actual?: string }
  | { code: "SNAPSHOT_NO_CHAIN"; datadir: string }
  | { code: "SNAPSHOT_GENESIS_MISMATCH"; file: string; expected: string; actual: string }
  | { code: "SNAPSHOT_DATADIR_NOT_EMPTY"; datadir: string }
  | { code: "SNAPSHOT_VERIFY_FAILED"; file: string; expected?: string; actual?: string }
  | { code: "SNAPSHOT_PROOFS_INVALID"; datadir?: string; file?: string };

/** A snapshot could not be written, read or verified. */
export class SnapshotError extends TypedError<SnapshotErrorType> {}

/** Passes bytes through while hashing (sha256) and counting them. */
class HashCounter extends Transform {
  readonly hash = createHash("sha256");
  bytes = 0;
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null, data?: Buffer) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }
}

/** Encodes the fixed prefix and the header (the payloads follow it). */
export function encodeSnapshotHeader(h: SnapshotHeader): Buffer {
  const json = Buffer.from(JSON.stringify(h), "utf8");
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(SNAPSHOT_MAGIC, 0, "ascii");
  prefix.writeUInt8(h.formatVersion, SNAPSHOT_MAGIC.length);
  prefix.writeUInt32BE(json.length, SNAPSHOT_MAGIC.length + 1);
  createHash("sha256").update(json).digest().copy(prefix, SNAPSHOT_MAGIC.length + 5);
  return Buffer.concat([prefix, json]);
}

/** Reads and checks the prefix and header of a snapshot file; returns the header and the payload offset. */
export function readSnapshotHeader(file: string): { header: SnapshotHeader; payloadOffset: number } {
  const fd = openSync(file, "r");
  try {
    const size = statSync(file).size;
    const prefix = Buffer.alloc(PREFIX_BYTES);
    const got = readSync(fd, prefix, 0, PREFIX_BYTES, 0);
    if (got < SNAPSHOT_MAGIC.length || prefix.toString("ascii", 0, SNAPSHOT_MAGIC.length) !== SNAPSHOT_MAGIC) {
      throw new SnapshotError({ code: "SNAPSHOT_NOT_A_SNAPSHOT", file }, `${file} is not a basalt snapshot: expected it to start with "${SNAPSHOT_MAGIC}"`);
    }
    if (got < PREFIX_BYTES) throw new SnapshotError({ code: "SNAPSHOT_TRUNCATED", file }, `${file} is truncated: it ends inside the header`);
    const version = prefix.readUInt8(SNAPSHOT_MAGIC.length);
    if (version < SNAPSHOT_FORMAT_VERSION_CHAIN || version > SNAPSHOT_FORMAT_VERSION) {
      throw new SnapshotError({ code: "SNAPSHOT_VERSION", file, expected: `${SNAPSHOT_FORMAT_VERSION_CHAIN}-${SNAPSHOT_FORMAT_VERSION}`, actual: String(version) }, `${file} has snapshot format version ${version}; this basalt reads versions ${SNAPSHOT_FORMAT_VERSION_CHAIN} to ${SNAPSHOT_FORMAT_VERSION}`);
    }
    const len = prefix.readUInt32BE(SNAPSHOT_MAGIC.length + 1);
    if (len > SNAPSHOT_MAX_HEADER_BYTES || PREFIX_BYTES + len > size) {
      throw new SnapshotError({ code: "SNAPSHOT_CHECKSUM", file }, `${file}: header length ${len} is impossible (file ${size} bytes): the file is corrupt`);
    }
    const json = Buffer.alloc(len);
    readSync(fd, json, 0, len, PREFIX_BYTES);
    const want = prefix.subarray(SNAPSHOT_MAGIC.length + 5, PREFIX_BYTES).toString("hex");
    const actual = createHash("sha256").update(json).digest("hex");
    if (actual !== want) {
      throw new SnapshotError({ code: "SNAPSHOT_CHECKSUM", file, expected: want, actual }, `${file}: header checksum mismatch (sha256 ${actual}, expected ${want}): the file is corrupt`);
    }
    const header = JSON.parse(json.toString("utf8")) as SnapshotHeader;
    if ((header.proofs !== undefined) !== (version === SNAPSHOT_FORMAT_VERSION)) {
      throw new SnapshotError({ code: "SNAPSHOT_CHECKSUM", file }, `${file}: format version ${version} ${header.proofs === undefined ? "without" : "with"} a proofs section: expected one exactly in version ${SNAPSHOT_FORMAT_VERSION}; the file is corrupt`);
    }
    const payloadOffset = PREFIX_BYTES + len;
    const payloads = header.payloadBytes + (header.proofs?.payloadBytes ?? 0);
    if (payloadOffset + payloads !== size) {
      throw new SnapshotError({ code: "SNAPSHOT_TRUNCATED", file, expected: String(payloads), actual: String(size - payloadOffset) }, `${file}: payload is ${size - payloadOffset} bytes, the header says ${payloads}: the file is truncated or has trailing data`);
    }
    return { header, payloadOffset };
  } finally {
    closeSync(fd);
  }
}

/** What a snapshot header records of the chain it holds. */
export type SnapshotChainInfo = Pick<SnapshotHeader, "chainId" | "genesisHash" | "head">;

/** Reads the {@link SnapshotChainInfo} of the chain in a datadir (the private copy of an export). */
type DescribeChain = (datadir: string) => Promise<SnapshotChainInfo>;

/**
 * Checks a freshly imported datadir against the snapshot header it came from; throws
 * {@link SnapshotError} `SNAPSHOT_VERIFY_FAILED` when it does not match.
 */
type VerifyImport = (datadir: string, header: SnapshotHeader, file: string) => Promise<void>;

/** Compresses (brotli) what is written into the returned sink into `out`, hashing and counting both sides. */
function compressing(out: string): { sink: Writable; done: Promise<{ raw: HashCounter; stored: HashCounter }> } {
  const raw = new HashCounter();
  const stored = new HashCounter();
  const done = pipeline(raw, createBrotliCompress({ params: { [zc.BROTLI_PARAM_QUALITY]: SNAPSHOT_BROTLI_QUALITY } }), stored, createWriteStream(out)).then(() => ({ raw, stored }));
  // Awaited once the writer is done; a failure before then reaches the writer as the sink's error.
  done.catch(() => undefined);
  return { sink: raw, done };
}

/** Options of {@link exportSnapshot}. */
interface ExportSnapshotOptions {
  /** The proofs store to carry after the chain (format version 2); none: the chain alone (version 1). */
  proofs?: ExportProofsSection;
}

/**
 * Exports the chain of `datadir` to `file` (written to `<file>.partial`, renamed when complete).
 * Safe while a node runs on the datadir: LMDB copies one consistent read transaction.
 * `describe` reads the head, genesis and chain id the header records from that copy. With
 * `opts.proofs`, the proofs store is dumped first, then checked against the chain copy.
 */
export async function exportSnapshot(datadir: string, file: string, describe: DescribeChain, opts: ExportSnapshotOptions = {}): Promise<SnapshotHeader> {
  if (!existsSync(join(datadir, CHAIN_DIR))) {
    throw new SnapshotError({ code: "SNAPSHOT_NO_CHAIN", datadir }, `datadir ${datadir} has no chain to export: expected ${join(datadir, CHAIN_DIR)}`);
  }
  const work = join(dirname(file), `.${basename(file)}.export-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, CHAIN_DIR), { recursive: true });
  try {
    // The proofs store first: its window then ends at or below the head of the chain copied next.
    const proofsPayload = join(work, "proofs.payload");
    let proofs: SnapshotProofsHeader | undefined;
    if (opts.proofs !== undefined) {
      const { sink, done } = compressing(proofsPayload);
      let info: SnapshotProofsInfo;
      try {
        info = await opts.proofs.dump(sink);
      } catch (e) {
        sink.destroy(e as Error);
        await done.catch(() => undefined);
        throw e;
      }
      const { raw, stored } = await done;
      proofs = { ...info, compression: "brotli", payloadBytes: stored.bytes, dataBytes: raw.bytes, payloadSha256: stored.hash.digest("hex") };
    }
    const store = ChainStore.open(datadir, { readOnly: true });
    try {
      await store.root.backup(join(work, CHAIN_DIR), true);
    } finally {
      await store.close();
    }
    const info = await describe(work);
    if (opts.proofs !== undefined && proofs !== undefined) await opts.proofs.check(work, proofs);
    const payloadFile = join(work, "payload");
    const chain = compressing(payloadFile);
    await pipeline(createReadStream(join(work, CHAIN_DIR, LMDB_DATA_FILE)), chain.sink);
    const { raw, stored } = await chain.done;
    const header: SnapshotHeader = {
      formatVersion: proofs === undefined ? SNAPSHOT_FORMAT_VERSION_CHAIN : SNAPSHOT_FORMAT_VERSION,
      ...info,
      createdAt: new Date().toISOString(),
      compression: "brotli",
      payloadBytes: stored.bytes,
      dataBytes: raw.bytes,
      payloadSha256: stored.hash.digest("hex"),
      ...(proofs === undefined ? {} : { proofs }),
    };
    const partial = `${file}.partial`;
    const out = createWriteStream(partial);
    await new Promise<void>((resolve, reject) => out.write(encodeSnapshotHeader(header), (e) => (e ? reject(e) : resolve())));
    await pipeline(
      async function* () {
        for (const part of proofs === undefined ? [payloadFile] : [payloadFile, proofsPayload]) yield* createReadStream(part);
      },
      out,
    );
    renameSync(partial, file);
    return header;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Streams `bytes` bytes of a snapshot file from `offset`. */
function payloadStream(file: string, offset: number, bytes: number): Readable {
  return bytes === 0 ? Readable.from([]) : createReadStream(file, { start: offset, end: offset + bytes - 1 });
}

/** Streams `bytes` bytes of a snapshot file from `offset`, decompressed as `compression` says. */
function decompressed(file: string, offset: number, bytes: number, compression: SnapshotCompression): Readable {
  const source = payloadStream(file, offset, bytes);
  if (compression === "none") return source;
  const inflate = compression === "brotli" ? createBrotliDecompress() : createGunzip();
  source.on("error", (e) => inflate.destroy(e));
  return source.pipe(inflate);
}

/** Checks the sha256 of `bytes` bytes of `file` from `offset` (nothing is written from a corrupt file). */
async function checkPayload(file: string, offset: number, bytes: number, expected: string, what: string): Promise<void> {
  const check = new HashCounter();
  await pipeline(payloadStream(file, offset, bytes), check, async function* (src: AsyncIterable<Buffer>) {
    for await (const _ of src) void _;
  });
  const actual = check.hash.digest("hex");
  if (actual !== expected) {
    throw new SnapshotError({ code: "SNAPSHOT_CHECKSUM", file, expected, actual }, `${file}: ${what} checksum mismatch (sha256 ${actual}, expected ${expected}): the file is corrupt`);
  }
}

/** Options of {@link importSnapshot}. */
export interface ImportSnapshotOptions {
  /** Replace the chain of a non-empty datadir (and the proofs store at the proofs section's directory). */
  force?: boolean;
  /** Genesis hash (0x) the snapshot must have, when the network was named. */
  expectedGenesis?: string;
  /** Label of the expected genesis for messages (e.g. the network name). */
  expectedLabel?: string;
  /** Where and how a proofs store the snapshot carries is restored; without it, one is not restored. */
  proofs?: ImportProofsSection;
}

/** What {@link importSnapshot} did. */
export interface ImportSnapshotResult {
  header: SnapshotHeader;
  /** A proofs store (of the replaced chain) that a forced import of a snapshot without one removed. */
  removedProofs?: string;
}

/** Whether `dir` exists with something in it. */
function nonEmpty(dir: string): boolean {
  return existsSync(dir) && readdirSync(dir).length > 0;
}

/**
 * Imports `file` into `datadir`: refuses a non-empty datadir (or proofs directory) unless
 * `force`, verifies the header and payload checksums before writing, decompresses the LMDB data
 * file into `<datadir>/chain`, then has `verify` check the imported chain against the header.
 * A proofs store the snapshot carries is then restored beside its final directory, verified,
 * and renamed into place. On a failed check nothing imported is left: the imported chain and the
 * staged proofs store are removed again. A forced import of a snapshot without proofs removes
 * the proofs store of the chain it replaces.
 */
export async function importSnapshot(file: string, datadir: string, verify: VerifyImport, opts: ImportSnapshotOptions = {}): Promise<ImportSnapshotResult> {
  const { header, payloadOffset } = readSnapshotHeader(file);
  if (opts.expectedGenesis !== undefined && opts.expectedGenesis.toLowerCase() !== header.genesisHash.toLowerCase()) {
    throw new SnapshotError({ code: "SNAPSHOT_GENESIS_MISMATCH", file, expected: opts.expectedGenesis, actual: header.genesisHash }, `${file} is a snapshot of chain ${header.chainId} with genesis ${header.genesisHash}, expected the genesis of ${opts.expectedLabel ?? "the network"} ${opts.expectedGenesis}`);
  }
  const chainDir = join(datadir, CHAIN_DIR);
  if (nonEmpty(datadir) && opts.force !== true) {
    throw new SnapshotError({ code: "SNAPSHOT_DATADIR_NOT_EMPTY", datadir }, `datadir ${datadir} is not empty: import into an empty directory, or pass --force to replace its chain`);
  }
  const proofs = header.proofs !== undefined ? opts.proofs : undefined;
  if (proofs !== undefined && nonEmpty(proofs.dir) && opts.force !== true) {
    throw new SnapshotError({ code: "SNAPSHOT_DATADIR_NOT_EMPTY", datadir: proofs.dir }, `proofs directory ${proofs.dir} is not empty: import into an empty one, or pass --force to replace its proofs store`);
  }
  // Checksums first: nothing is written from a corrupt file.
  await checkPayload(file, payloadOffset, header.payloadBytes, header.payloadSha256, "payload");
  const proofsOffset = payloadOffset + header.payloadBytes;
  if (header.proofs !== undefined) await checkPayload(file, proofsOffset, header.proofs.payloadBytes, header.proofs.payloadSha256, "proofs payload");
  const staging = join(datadir, `.${CHAIN_DIR}.importing`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    await pipeline(decompressed(file, payloadOffset, header.payloadBytes, header.compression), createWriteStream(join(staging, LMDB_DATA_FILE)));
    rmSync(chainDir, { recursive: true, force: true });
    renameSync(staging, chainDir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  // Staged beside its final directory, so the rename into place stays on one file system.
  const proofsStaging = proofs === undefined ? undefined : join(dirname(proofs.dir), `.${basename(proofs.dir)}.importing`);
  try {
    await verify(datadir, header, file);
    if (proofs !== undefined && proofsStaging !== undefined && header.proofs !== undefined) {
      rmSync(proofsStaging, { recursive: true, force: true });
      mkdirSync(proofsStaging, { recursive: true });
      await proofs.restore(decompressed(file, proofsOffset, header.proofs.payloadBytes, header.proofs.compression), proofsStaging, header.proofs);
      await proofs.verify(proofsStaging, datadir, header.proofs, file);
      rmSync(proofs.dir, { recursive: true, force: true });
      renameSync(proofsStaging, proofs.dir);
    }
  } catch (e) {
    rmSync(chainDir, { recursive: true, force: true });
    if (proofsStaging !== undefined) rmSync(proofsStaging, { recursive: true, force: true });
    throw e;
  }
  if (header.proofs === undefined && opts.force === true && opts.proofs !== undefined && existsSync(opts.proofs.dir)) {
    rmSync(opts.proofs.dir, { recursive: true, force: true });
    return { header, removedProofs: opts.proofs.dir };
  }
  return { header };
}
