/**
 * geth-style genesis files: parsing, validation, and the genesis block and state.
 */
import { createBlock, type Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { Account, Address, KECCAK256_RLP, bigIntToBytes, hexToBytes, setLengthLeft, createAddressFromString } from "@ethereumjs/util";
import { sha256 } from "@noble/hashes/sha2.js";
import { TypedError } from "../util/errors.js";

/** One account of a genesis `alloc`. */
export interface GenesisAccount {
  balance?: string;
  nonce?: string | number;
  code?: string;
  storage?: Record<string, string>;
}

/** A geth-style genesis file. */
export interface GenesisJson {
  config: Record<string, unknown> & { chainId: number | string };
  nonce?: string;
  timestamp?: string;
  extraData?: string;
  gasLimit: string;
  difficulty?: string;
  mixHash?: string;
  coinbase?: string;
  alloc: Record<string, GenesisAccount>;
  number?: string;
  gasUsed?: string;
  parentHash?: string;
  baseFeePerGas?: string | null;
  excessBlobGas?: string | null;
  blobGasUsed?: string | null;
}

/** Stable code of {@link GenesisError}. */
const GenesisErrorCode = { INVALID: "GENESIS_INVALID" } as const;
/** A {@link GenesisError}'s code with its metadata. */
type GenesisErrorType = { code: typeof GenesisErrorCode.INVALID };

/** Raised for a malformed genesis file. */
export class GenesisError extends TypedError<GenesisErrorType> {
  constructor(message: string) {
    super({ code: GenesisErrorCode.INVALID }, message);
  }
}

/** geth `params.InitialBaseFee`: the base fee of a London-at-genesis chain's first block. */
const INITIAL_BASE_FEE = 1_000_000_000n;

function big(v: string | number | undefined | null, dflt = 0n): bigint {
  if (v === undefined || v === null || v === "") return dflt;
  return BigInt(v);
}

/** Validates the shape of a parsed genesis file, naming the first bad field. */
export function validateGenesis(g: unknown): GenesisJson {
  if (typeof g !== "object" || g === null) throw new GenesisError("genesis file must be a JSON object");
  const o = g as Record<string, unknown>;
  if (typeof o.config !== "object" || o.config === null) throw new GenesisError("genesis: missing `config` object");
  const cfg = o.config as Record<string, unknown>;
  if (cfg.chainId === undefined) throw new GenesisError("genesis: missing `config.chainId`");
  if (typeof o.gasLimit !== "string" && typeof o.gasLimit !== "number") throw new GenesisError("genesis: missing `gasLimit`");
  if (typeof o.alloc !== "object" || o.alloc === null) throw new GenesisError("genesis: missing `alloc` object");
  return o as unknown as GenesisJson;
}

/** Normalizes an alloc address key (with or without 0x). */
function allocAddress(key: string): Address {
  return createAddressFromString(key.startsWith("0x") ? key : `0x${key}`);
}

/** The accounts, code and storage of a genesis alloc, as @ethereumjs values. */
export function* allocEntries(g: GenesisJson): Generator<{
  address: Address;
  account: Account;
  code?: Uint8Array;
  storage: [Uint8Array, Uint8Array][];
}> {
  for (const [key, a] of Object.entries(g.alloc)) {
    const account = new Account(big(a.nonce), big(a.balance));
    const code = a.code !== undefined && a.code !== "0x" && a.code !== "" ? hexToBytes(a.code as `0x${string}`) : undefined;
    const storage: [Uint8Array, Uint8Array][] = [];
    for (const [k, v] of Object.entries(a.storage ?? {})) {
      storage.push([setLengthLeft(hexToBytes(k as `0x${string}`), 32), hexToBytes(v as `0x${string}`)]);
    }
    yield { address: allocAddress(key), account, code, storage };
  }
}

/** Builds the genesis block of `g` with the given state root. */
export function genesisBlock(g: GenesisJson, common: Common, stateRoot: Uint8Array): Block {
  common.setHardforkBy({ blockNumber: big(g.number), timestamp: big(g.timestamp) });
  const header: Record<string, unknown> = {
    number: big(g.number),
    parentHash: g.parentHash ?? new Uint8Array(32),
    timestamp: big(g.timestamp),
    gasLimit: big(g.gasLimit),
    gasUsed: big(g.gasUsed),
    difficulty: big(g.difficulty),
    nonce: setLengthLeft(bigIntToBytes(big(g.nonce)), 8),
    extraData: g.extraData ?? "0x",
    mixHash: g.mixHash ?? new Uint8Array(32),
    coinbase: g.coinbase ?? new Uint8Array(20),
    stateRoot,
  };
  if (common.isActivatedEIP(1559)) header.baseFeePerGas = big(g.baseFeePerGas, INITIAL_BASE_FEE);
  if (common.isActivatedEIP(4895)) header.withdrawalsRoot = KECCAK256_RLP;
  if (common.isActivatedEIP(4844)) {
    header.blobGasUsed = big(g.blobGasUsed);
    header.excessBlobGas = big(g.excessBlobGas);
  }
  if (common.isActivatedEIP(4788)) header.parentBeaconBlockRoot = new Uint8Array(32);
  if (common.isActivatedEIP(7685)) header.requestsHash = sha256(new Uint8Array(0));
  return createBlock({ header, withdrawals: common.isActivatedEIP(4895) ? [] : undefined }, { common, skipConsensusFormatValidation: true });
}
