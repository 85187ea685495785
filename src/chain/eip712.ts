/**
 * EIP-712 typed structured data hashing (eth_signTypedData_v4): `keccak256(0x1901 ‖
 * hashStruct(EIP712Domain, domain) ‖ hashStruct(primaryType, message))`, with the v4 rules —
 * struct members and arrays (of any type, nested) are hashed, `string` and `bytes` are hashed,
 * `bytesN` right-padded, `address`, `bool`, `uintN` and `intN` as 32-byte words.
 */
import { keccak256 } from "../util/keccak.js";
import { TypedError } from "../util/errors.js";

/** One member of a struct type. */
interface TypedDataField {
  name: string;
  type: string;
}

/** eth_signTypedData_v4's second parameter. */
export interface TypedData {
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

/** Stable code of {@link TypedDataError}. */
const TypedDataErrorCode = { TYPED_DATA_INVALID: "CHAIN_TYPED_DATA_INVALID" } as const;
/** A {@link TypedDataError}'s code with its metadata. */
type TypedDataErrorType = { code: typeof TypedDataErrorCode.TYPED_DATA_INVALID; path: string };

/** Typed data that does not follow EIP-712 (an unknown type, a value that does not fit its type). */
export class TypedDataError extends TypedError<TypedDataErrorType> {
  constructor(path: string, why: string) {
    super({ code: TypedDataErrorCode.TYPED_DATA_INVALID, path }, `typed data ${path}: ${why}`);
  }
}

/** The EIP712Domain members, in the order EIP-712 lists them (used when `types` omits the domain type). */
const DOMAIN_FIELDS: TypedDataField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
  { name: "salt", type: "bytes32" },
];

function bytesOf(v: unknown, path: string): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string" && /^0x([0-9a-fA-F]{2})*$/.test(v)) return Buffer.from(v.slice(2), "hex");
  throw new TypedDataError(path, "0x hex bytes expected");
}

function integerOf(v: unknown, path: string): bigint {
  try {
    if (typeof v === "bigint") return v;
    if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
    if (typeof v === "string" && v.trim() !== "") return BigInt(v);
  } catch {
    // fall through
  }
  throw new TypedDataError(path, "an integer (number, decimal or 0x string) expected");
}

function word(v: bigint): Uint8Array {
  return Buffer.from(BigInt.asUintN(256, v).toString(16).padStart(64, "0"), "hex");
}

/** The struct types `type` references (itself included), found through its members. */
function dependencies(type: string, types: Record<string, TypedDataField[]>, found: Set<string>): Set<string> {
  const base = type.replace(/\[\d*\]$/, "");
  if (base !== type) return dependencies(base, types, found);
  if (found.has(type) || types[type] === undefined) return found;
  found.add(type);
  for (const f of types[type]!) dependencies(f.type, types, found);
  return found;
}

/** `encodeType`: the primary type's definition, then its dependencies' in name order. */
function encodeType(primary: string, types: Record<string, TypedDataField[]>): string {
  const deps = [...dependencies(primary, types, new Set())].filter((t) => t !== primary).sort();
  return [primary, ...deps].map((t) => `${t}(${types[t]!.map((f) => `${f.type} ${f.name}`).join(",")})`).join("");
}

function encodeValue(type: string, value: unknown, types: Record<string, TypedDataField[]>, path: string): Uint8Array {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array !== null) {
    if (!Array.isArray(value)) throw new TypedDataError(path, `an array expected for ${type}`);
    if (array[2] !== "" && value.length !== Number(array[2])) throw new TypedDataError(path, `${array[2]} elements expected, got ${value.length}`);
    return keccak256(Buffer.concat(value.map((v, i) => encodeValue(array[1]!, v, types, `${path}[${i}]`))));
  }
  if (types[type] !== undefined) return hashStruct(type, value as Record<string, unknown>, types, path);
  if (type === "string") {
    if (typeof value !== "string") throw new TypedDataError(path, "a string expected");
    return keccak256(Buffer.from(value, "utf8"));
  }
  if (type === "bytes") return keccak256(bytesOf(value, path));
  if (type === "bool") return word(value === true || value === "true" ? 1n : 0n);
  if (type === "address") {
    const b = bytesOf(value, path);
    if (b.length !== 20) throw new TypedDataError(path, "a 20-byte address expected");
    return word(BigInt("0x" + Buffer.from(b).toString("hex")));
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed !== null) {
    const b = bytesOf(value, path);
    if (b.length > Number(fixed[1])) throw new TypedDataError(path, `at most ${fixed[1]} bytes expected`);
    const out = new Uint8Array(32);
    out.set(b);
    return out;
  }
  if (/^u?int\d*$/.test(type)) return word(integerOf(value, path));
  throw new TypedDataError(path, `unknown type ${JSON.stringify(type)}`);
}

/** `hashStruct(type, data)` = keccak256(typeHash ‖ encodeData). */
function hashStruct(type: string, data: Record<string, unknown>, types: Record<string, TypedDataField[]>, path = type): Uint8Array {
  const fields = types[type];
  if (fields === undefined) throw new TypedDataError(path, `unknown struct type ${JSON.stringify(type)}`);
  if (typeof data !== "object" || data === null) throw new TypedDataError(path, "an object expected");
  const parts = [keccak256(Buffer.from(encodeType(type, types), "utf8"))];
  for (const f of fields) {
    const v = data[f.name];
    if (v === undefined || v === null) throw new TypedDataError(`${path}.${f.name}`, `missing value of type ${f.type}`);
    parts.push(encodeValue(f.type, v, types, `${path}.${f.name}`));
  }
  return keccak256(Buffer.concat(parts));
}

/** The EIP-712 digest a `eth_signTypedData_v4` signature signs. */
export function hashTypedData(t: TypedData): Uint8Array {
  const types = { ...t.types };
  if (types.EIP712Domain === undefined) types.EIP712Domain = DOMAIN_FIELDS.filter((f) => t.domain[f.name] !== undefined);
  const domain = hashStruct("EIP712Domain", t.domain, types, "domain");
  const message = hashStruct(t.primaryType, t.message, types, "message");
  return keccak256(Buffer.concat([Uint8Array.of(0x19, 0x01), domain, message]));
}
