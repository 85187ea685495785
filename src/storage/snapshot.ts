/**
 * Datadir snapshots: one file holding a consistent copy of a datadir's LMDB environment, for
 * `basalt snapshot export|import`.
 *
 * File layout:
 * - magic `BASALT-SNAPSHOT` (15 bytes ASCII), format version (1 byte);
 * - header length (4 bytes, big-endian), sha256 of the header (32 bytes), the header (UTF-8 JSON,
 *   {@link SnapshotHeader}): chain id, genesis hash, head number/hash/state root, creation time,
 *   payload compression, sizes and the sha256 of the payload;
 * - the payload: the LMDB data file (`data.mdb`, a compacting copy) compressed as the header says
 *   (brotli when written by this code; gzip and none are read too).
 *
 * Export copies the environment with LMDB's own copy (`mdb_env_copy2` with compaction, inside one
 * read transaction), so it is consistent while a node is writing; the head recorded in the header
 * is read from that copy. Import checks both checksums before it writes anything, decompresses
 * into the datadir, then has the imported chain verified. Reading the chain (its head, state
 * root and genesis) needs the chain service above storage: the caller passes those steps in
 * (`src/ops/snapshot.ts`).
 */
import { createHash } from "node:crypto";
import { closeSync, createReadStream, createWriteStream, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { constants as zc, createBrotliCompress, createBrotliDecompress, createGunzip } from "node:zlib";
import { BasaltError } from "../util/errors.js";
import { ChainStore } from "./store.js";
import { SNAPSHOT_MAX_HEADER_BYTES, SNAPSHOT_BROTLI_QUALITY } from "../config/constants.js";

/** File magic: identifies a basalt snapshot. */
export const SNAPSHOT_MAGIC = "BASALT-SNAPSHOT";
/** Format version written by this code (bump on any layout change). */
export const SNAPSHOT_FORMAT_VERSION = 1;
/** Bytes before the header: magic, version, header length, header sha256. */
const PREFIX_BYTES = SNAPSHOT_MAGIC.length + 1 + 4 + 32;
/** Name of LMDB's data file inside the environment directory (`<datadir>/chain`). */
const LMDB_DATA_FILE = "data.mdb";
/** Name of the store's environment directory inside a datadir. */
const CHAIN_DIR = "chain";

/** Compression of the payload. */
export type SnapshotCompression = "brotli" | "gzip" | "none";

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
}

/** Stable codes of {@link SnapshotError}. */
export type SnapshotErrorCode =
  | "SNAPSHOT_NOT_A_SNAPSHOT"
  | "SNAPSHOT_VERSION"
  | "SNAPSHOT_CHECKSUM"
  | "SNAPSHOT_TRUNCATED"
  | "SNAPSHOT_DATADIR_NOT_EMPTY"
  | "SNAPSHOT_NO_CHAIN"
  | "SNAPSHOT_VERIFY_FAILED"
  | "SNAPSHOT_GENESIS_MISMATCH";

/** A snapshot could not be written, read or verified. */
export class SnapshotError extends BasaltError<{ file?: string; datadir?: string; expected?: string; actual?: string }> {
  constructor(code: SnapshotErrorCode, message: string, meta: { file?: string; datadir?: string; expected?: string; actual?: string } = {}) {
    super(code, message, meta);
  }
}

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

/** Encodes the fixed prefix and the header. */
function encodeHeader(h: SnapshotHeader): Buffer {
  const json = Buffer.from(JSON.stringify(h), "utf8");
  const prefix = Buffer.alloc(PREFIX_BYTES);
  prefix.write(SNAPSHOT_MAGIC, 0, "ascii");
  prefix.writeUInt8(SNAPSHOT_FORMAT_VERSION, SNAPSHOT_MAGIC.length);
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
      throw new SnapshotError("SNAPSHOT_NOT_A_SNAPSHOT", `${file} is not a basalt snapshot: expected it to start with "${SNAPSHOT_MAGIC}"`, { file });
    }
    if (got < PREFIX_BYTES) throw new SnapshotError("SNAPSHOT_TRUNCATED", `${file} is truncated: it ends inside the header`, { file });
    const version = prefix.readUInt8(SNAPSHOT_MAGIC.length);
    if (version !== SNAPSHOT_FORMAT_VERSION) {
      throw new SnapshotError(
        "SNAPSHOT_VERSION",
        `${file} has snapshot format version ${version}; this basalt reads version ${SNAPSHOT_FORMAT_VERSION}`,
        { file, expected: String(SNAPSHOT_FORMAT_VERSION), actual: String(version) },
      );
    }
    const len = prefix.readUInt32BE(SNAPSHOT_MAGIC.length + 1);
    if (len > SNAPSHOT_MAX_HEADER_BYTES || PREFIX_BYTES + len > size) {
      throw new SnapshotError("SNAPSHOT_CHECKSUM", `${file}: header length ${len} is impossible (file ${size} bytes): the file is corrupt`, { file });
    }
    const json = Buffer.alloc(len);
    readSync(fd, json, 0, len, PREFIX_BYTES);
    const want = prefix.subarray(SNAPSHOT_MAGIC.length + 5, PREFIX_BYTES).toString("hex");
    const actual = createHash("sha256").update(json).digest("hex");
    if (actual !== want) {
      throw new SnapshotError("SNAPSHOT_CHECKSUM", `${file}: header checksum mismatch (sha256 ${actual}, expected ${want}): the file is corrupt`, {
        file,
        expected: want,
        actual,
      });
    }
    const header = JSON.parse(json.toString("utf8")) as SnapshotHeader;
    const payloadOffset = PREFIX_BYTES + len;
    if (payloadOffset + header.payloadBytes !== size) {
      throw new SnapshotError(
        "SNAPSHOT_TRUNCATED",
        `${file}: payload is ${size - payloadOffset} bytes, the header says ${header.payloadBytes}: the file is truncated or has trailing data`,
        { file, expected: String(header.payloadBytes), actual: String(size - payloadOffset) },
      );
    }
    return { header, payloadOffset };
  } finally {
    closeSync(fd);
  }
}

/** What a snapshot header records of the chain it holds. */
export type SnapshotChainInfo = Pick<SnapshotHeader, "chainId" | "genesisHash" | "head">;

/** Reads the {@link SnapshotChainInfo} of the chain in a datadir (the private copy of an export). */
export type DescribeChain = (datadir: string) => Promise<SnapshotChainInfo>;

/**
 * Checks a freshly imported datadir against the snapshot header it came from; throws
 * {@link SnapshotError} `SNAPSHOT_VERIFY_FAILED` when it does not match.
 */
export type VerifyImport = (datadir: string, header: SnapshotHeader, file: string) => Promise<void>;

/**
 * Exports the chain of `datadir` to `file` (written to `<file>.partial`, renamed when complete).
 * Safe while a node runs on the datadir: LMDB copies one consistent read transaction.
 * `describe` reads the head, genesis and chain id the header records from that copy.
 */
export async function exportSnapshot(datadir: string, file: string, describe: DescribeChain): Promise<SnapshotHeader> {
  if (!existsSync(join(datadir, CHAIN_DIR))) {
    throw new SnapshotError("SNAPSHOT_NO_CHAIN", `datadir ${datadir} has no chain to export: expected ${join(datadir, CHAIN_DIR)}`, { datadir });
  }
  const work = join(dirname(file), `.${basename(file)}.export-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, CHAIN_DIR), { recursive: true });
  try {
    const store = ChainStore.open(datadir, { readOnly: true });
    try {
      await store.root.backup(join(work, CHAIN_DIR), true);
    } finally {
      await store.close();
    }
    const info = await describe(work);
    const dataFile = join(work, CHAIN_DIR, LMDB_DATA_FILE);
    const payloadFile = join(work, "payload");
    const raw = new HashCounter();
    const stored = new HashCounter();
    await pipeline(createReadStream(dataFile), raw, createBrotliCompress({ params: { [zc.BROTLI_PARAM_QUALITY]: SNAPSHOT_BROTLI_QUALITY } }), stored, createWriteStream(payloadFile));
    const header: SnapshotHeader = {
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      ...info,
      createdAt: new Date().toISOString(),
      compression: "brotli",
      payloadBytes: stored.bytes,
      dataBytes: raw.bytes,
      payloadSha256: stored.hash.digest("hex"),
    };
    const partial = `${file}.partial`;
    const out = createWriteStream(partial);
    await new Promise<void>((resolve, reject) => out.write(encodeHeader(header), (e) => (e ? reject(e) : resolve())));
    await pipeline(createReadStream(payloadFile), out);
    renameSync(partial, file);
    return header;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Streams the payload of a snapshot file. */
function payloadStream(file: string, offset: number): Readable {
  return createReadStream(file, { start: offset });
}

/** Options of {@link importSnapshot}. */
export interface ImportSnapshotOptions {
  /** Replace the chain of a non-empty datadir. */
  force?: boolean;
  /** Genesis hash (0x) the snapshot must have, when the network was named. */
  expectedGenesis?: string;
  /** Label of the expected genesis for messages (e.g. the network name). */
  expectedLabel?: string;
}

/**
 * Imports `file` into `datadir`: refuses a non-empty datadir unless `force`, verifies the header
 * and payload checksums before writing, decompresses the LMDB data file into `<datadir>/chain`,
 * then has `verify` check the imported chain against the header. On a failed check the imported
 * chain is removed again.
 */
export async function importSnapshot(file: string, datadir: string, verify: VerifyImport, opts: ImportSnapshotOptions = {}): Promise<SnapshotHeader> {
  const { header, payloadOffset } = readSnapshotHeader(file);
  if (opts.expectedGenesis !== undefined && opts.expectedGenesis.toLowerCase() !== header.genesisHash.toLowerCase()) {
    throw new SnapshotError(
      "SNAPSHOT_GENESIS_MISMATCH",
      `${file} is a snapshot of chain ${header.chainId} with genesis ${header.genesisHash}, expected the genesis of ${opts.expectedLabel ?? "the network"} ${opts.expectedGenesis}`,
      { file, expected: opts.expectedGenesis, actual: header.genesisHash },
    );
  }
  const chainDir = join(datadir, CHAIN_DIR);
  if (existsSync(datadir) && readdirSync(datadir).length > 0) {
    if (opts.force !== true) {
      throw new SnapshotError("SNAPSHOT_DATADIR_NOT_EMPTY", `datadir ${datadir} is not empty: import into an empty directory, or pass --force to replace its chain`, {
        datadir,
      });
    }
  }
  // Checksum first: nothing is written from a corrupt file.
  const check = new HashCounter();
  await pipeline(payloadStream(file, payloadOffset), check, async function* (src: AsyncIterable<Buffer>) {
    for await (const _ of src) void _;
  });
  const actual = check.hash.digest("hex");
  if (actual !== header.payloadSha256) {
    throw new SnapshotError("SNAPSHOT_CHECKSUM", `${file}: payload checksum mismatch (sha256 ${actual}, expected ${header.payloadSha256}): the file is corrupt`, {
      file,
      expected: header.payloadSha256,
      actual,
    });
  }
  const staging = join(datadir, `.${CHAIN_DIR}.importing`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const out = join(staging, LMDB_DATA_FILE);
    const stages: (NodeJS.ReadableStream | NodeJS.WritableStream | NodeJS.ReadWriteStream)[] = [payloadStream(file, payloadOffset)];
    if (header.compression === "brotli") stages.push(createBrotliDecompress());
    else if (header.compression === "gzip") stages.push(createGunzip());
    stages.push(createWriteStream(out));
    await pipeline(stages as unknown as [Readable, NodeJS.WritableStream]);
    rmSync(chainDir, { recursive: true, force: true });
    renameSync(staging, chainDir);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  try {
    await verify(datadir, header, file);
  } catch (e) {
    rmSync(chainDir, { recursive: true, force: true });
    throw e;
  }
  return header;
}
