/**
 * The B20Factory precompile (`0xB20f…0000`), V1 at Beryl and still V1 at Cobalt (base/base
 * `b20_factory/dispatch.rs`, `logic/v1.rs`, the wire surface frozen in `abi/v1.rs` @3998acc1):
 * `createB20(variant, salt, params, initCalls)` creates a B-20 token at
 * `0xb2 ‖ 00×9 ‖ variant ‖ keccak256(abi.encode(msg.sender, salt))[0..9]`, `getB20Address`
 * predicts it, `isB20` checks the address prefix, `isB20Initialized` the token's 0xef marker code.
 *
 * `createB20`, in base/base's order: the metered address hash; the variant's ActivationRegistry
 * feature (`FeatureNotActivated`); the variant's create params (`AbiDecodeFailed` under the
 * createB20 selector), their version (`UnsupportedVersion`) and an asset's decimals
 * (`InvalidDecimals`); `TokenAlreadyExists` when the address has code; then atomically the marker
 * code (code deposit + CREATE + hash), the token's storage (a stablecoin's currency checked first:
 * `MissingRequiredField`/`InvalidCurrency`), `B20Created`, DEFAULT_ADMIN for a non-zero initial
 * admin (granted by the factory), and each init call routed into the new token with the factory as
 * privileged caller at the fork's token version — a typed revert propagates as is, a halt halts,
 * anything else (unknown selector, bad arguments, empty revert) is `InitCallFailed(index)`.
 */
import { KECCAK256_NULL } from "@ethereumjs/util";
import { AbiOverrunError, AbiTypeCheckError, decodeParams, encodeParams, type AbiValue } from "../abi.js";
import { B20_FACTORY_ADDRESS } from "../addresses.js";
import type { BaseCallContext } from "../context.js";
import { AbiDecodeError, PrecompileRevertError, UnknownSelectorError } from "../errors.js";
import type { BasePrecompileHandler } from "../outcome.js";
import { u256Bytes } from "../slots.js";
import { OpFork } from "../../../chain/op/forks.js";
import { B20_ASSET_FEATURE, B20_STABLECOIN_FEATURE, ensureFeatureActivated } from "../activation/index.js";
import { B20Variant, b20AddressPreimage, b20TokenAddress, hasB20Prefix } from "../b20/address.js";
import { ASSET_MAX_DECIMALS, ASSET_MIN_DECIMALS, B20_MARKER_CODE, B20_MARKER_CODE_HASH, B20_MAX_SUPPLY_CAP, B20Role, STABLECOIN_DECIMALS } from "../b20/constants.js";
import { B20Error, customError, eventSpec, addressWord } from "../b20/codec.js";
import { calldataGas, cobaltStringsAt, emptyRevert, isSystemError, routeToken, tokenVersionAt } from "../b20/dispatch.js";
import type { PolicyPort } from "../b20/policyPort.js";
import { CoreSlot, STABLECOIN_CURRENCY_SLOT } from "../b20/storage.js";
import { abiFunction, AbiSurface, decodeArguments, selectorOfCall } from "../b20/surface.js";
import { B20Token } from "../b20/token.js";
import { isIsoCurrency } from "./currency.js";

/** The `B20Variant` enum has two members (ASSET, STABLECOIN); a larger value fails ABI decoding. */
const VARIANT = "uint8enum2";

/** IB20Factory at Beryl (unchanged at Cobalt). */
const FACTORY_V1 = new AbiSurface([
  abiFunction("createB20", [VARIANT, "bytes32", "bytes", "bytes[]"]),
  abiFunction("getB20Address", [VARIANT, "address", "bytes32"]),
  abiFunction("isB20", ["address"]),
  abiFunction("isB20Initialized", ["address"]),
]);
const CREATE_B20 = FACTORY_V1.functions[0]!;

/**
 * Shortest calldata the factory's call enum decodes: 4 + 32 (every function takes at least one
 * word). alloy's `SolInterface::abi_decode` refuses less as a type-check failure naming the enum,
 * which a known selector turns into `AbiDecodeFailed` (base/base pins the enum's name for this).
 */
const MIN_CALLDATA = 36;
const INTERFACE_NAME = "IB20FactoryCalls";

/** The only create-params version each variant accepts (`B20Variant::supported_version`). */
const SUPPORTED_PARAMS_VERSION = 1n;
/** Version of the `B20StablecoinEventParams` carried in `B20Created.variantParams`. */
const STABLECOIN_EVENT_PARAMS_VERSION = 1n;

/** IB20Factory errors. */
export const FactoryError = {
  tokenAlreadyExists: customError("TokenAlreadyExists", ["address"]),
  unsupportedVersion: customError("UnsupportedVersion", ["uint8", "uint8"]),
  missingRequiredField: customError("MissingRequiredField", ["string"]),
  invalidCurrency: customError("InvalidCurrency", ["string"]),
  invalidDecimals: customError("InvalidDecimals", ["uint8"]),
  initCallFailed: customError("InitCallFailed", ["uint256"]),
} as const;

/** `B20Created(address indexed token, uint8 indexed variant, string name, string symbol, uint8 decimals, bytes variantParams)`. */
const B20_CREATED = eventSpec("B20Created(address,uint8,string,string,uint8,bytes)", ["string", "string", "uint8", "bytes"]);

/** The create params of each variant (`B20AssetCreateParams`, `B20StablecoinCreateParams`), decoded as alloy decodes one struct. */
const PARAMS = {
  [B20Variant.asset]: { name: "B20AssetCreateParams", type: "(uint8,string,string,address,uint8)" },
  [B20Variant.stablecoin]: { name: "B20StablecoinCreateParams", type: "(uint8,string,string,address,string)" },
} as const;

interface CreateParams {
  version: bigint;
  name: string;
  symbol: string;
  initialAdmin: Uint8Array;
  /** Asset only. */
  decimals: bigint;
  /** Stablecoin only. */
  currency: string;
}

/** Decodes a variant's create params; failures are `AbiDecodeFailed` under the createB20 selector (a type-check message names the struct). */
function decodeCreateParams(variant: B20Variant, params: Uint8Array): CreateParams {
  const spec = PARAMS[variant];
  let fields: AbiValue[];
  try {
    fields = decodeParams([spec.type], params)[0] as AbiValue[];
  } catch (e) {
    if (e instanceof AbiTypeCheckError) throw new AbiDecodeError(CREATE_B20.selector, e.message.replace(/^type check failed for "[^"]*"/, `type check failed for "${spec.name}"`));
    if (e instanceof AbiOverrunError) throw new AbiDecodeError(CREATE_B20.selector, e.message);
    throw e;
  }
  const [version, name, symbol, initialAdmin, last] = fields as [bigint, string, string, Uint8Array, bigint | string];
  return variant === B20Variant.asset ? { version, name, symbol, initialAdmin, decimals: last as bigint, currency: "" } : { version, name, symbol, initialAdmin, decimals: BigInt(STABLECOIN_DECIMALS), currency: last as string };
}

/** What the factory needs besides its context: how tokens read policies. */
interface FactoryDeps {
  policy: PolicyPort;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The factory's full dispatch for one call (nonpayable, calldata charge, Beryl gate, decode, route). */
function dispatchFactory(ctx: BaseCallContext, input: Uint8Array, deps: FactoryDeps): Uint8Array {
  if (ctx.env.value !== 0n) throw B20Error.nonPayable();
  ctx.deductGas(calldataGas(input));
  if (ctx.fork < OpFork.beryl) throw emptyRevert();
  const selector = selectorOfCall(input);
  const fn = FACTORY_V1.get(selector);
  if (input.length < MIN_CALLDATA) {
    if (fn === undefined) throw new UnknownSelectorError(selector.slice());
    throw new AbiDecodeError(fn.selector, `type check failed for "${INTERFACE_NAME}" with data: ${Buffer.from(input).toString("hex")}`);
  }
  if (fn === undefined) throw new UnknownSelectorError(selector.slice());
  const args = decodeArguments(fn, input);
  switch (fn.name) {
    case "createB20":
      return addressWord(createB20(ctx, deps, Number(args[0]) as B20Variant, args[1] as Uint8Array, args[2] as Uint8Array, args[3] as Uint8Array[]));
    case "getB20Address":
      return addressWord(b20TokenAddress(Number(args[0]) as B20Variant, ctx.keccak256(b20AddressPreimage(args[1] as Uint8Array, args[2] as Uint8Array))));
    case "isB20":
      return encodeParams(["bool"], [hasB20Prefix(args[0] as Uint8Array)]);
    default:
      return encodeParams(["bool"], [isB20Initialized(ctx, args[0] as Uint8Array)]);
  }
}

/** Whether `token` has the B-20 prefix and the factory's marker code (an account read, no storage). */
function isB20Initialized(ctx: BaseCallContext, token: Uint8Array): boolean {
  return hasB20Prefix(token) && equalBytes(ctx.account(token).codeHash, B20_MARKER_CODE_HASH);
}

/** `createB20`: see the module comment for the order of its checks and effects. Returns the token address. */
function createB20(ctx: BaseCallContext, deps: FactoryDeps, variant: B20Variant, salt: Uint8Array, params: Uint8Array, initCalls: Uint8Array[]): Uint8Array {
  const creator = ctx.caller;
  const hash = ctx.keccak256(b20AddressPreimage(creator, salt));
  ensureFeatureActivated(ctx, variant === B20Variant.asset ? B20_ASSET_FEATURE : B20_STABLECOIN_FEATURE);
  const p = decodeCreateParams(variant, params);
  if (p.version !== SUPPORTED_PARAMS_VERSION) throw FactoryError.unsupportedVersion(p.version, BigInt(variant));
  if (variant === B20Variant.asset && (p.decimals < ASSET_MIN_DECIMALS || p.decimals > ASSET_MAX_DECIMALS)) throw FactoryError.invalidDecimals(p.decimals);
  const token = b20TokenAddress(variant, hash);
  if (!equalBytes(ctx.account(token).codeHash, KECCAK256_NULL)) throw FactoryError.tokenAlreadyExists(token);
  return ctx.atomically(() => {
    ctx.setCode(token, B20_MARKER_CODE);
    const version = tokenVersionAt(ctx.fork) ?? 1;
    const t = new B20Token(ctx, token, variant, version, deps.policy, cobaltStringsAt(ctx.fork));
    initializeToken(t, p);
    const variantParams = variant === B20Variant.asset ? new Uint8Array(0) : encodeParams(["(uint8,string)"], [[STABLECOIN_EVENT_PARAMS_VERSION, p.currency]]);
    B20_CREATED.emit(ctx, B20_FACTORY_ADDRESS, [addressWord(token), u256Bytes(BigInt(variant))], [p.name, p.symbol, p.decimals, variantParams]);
    if (!equalBytes(p.initialAdmin, ZERO_ADDRESS)) t.grantRoleUnchecked(B20Role.defaultAdmin, p.initialAdmin, B20_FACTORY_ADDRESS);
    ctx.withCaller(B20_FACTORY_ADDRESS, () => {
      initCalls.forEach((call, index) => {
        try {
          routeToken(t, call, true);
        } catch (e) {
          if (isSystemError(e) || (e instanceof PrecompileRevertError && e.data.length > 0)) throw e;
          throw FactoryError.initCallFailed(BigInt(index));
        }
      });
    });
    return token;
  });
}

const ZERO_ADDRESS = new Uint8Array(20);

/**
 * The token's creation-time storage (base/base `B20AssetStorage::initialize`,
 * `B20StablecoinStorage::initialize`): name, symbol, the uint128-max supply cap, then an asset's
 * decimals and a physically-zero multiplier (read as WAD) or a stablecoin's currency, checked
 * against the ISO-4217 allowlist before anything is written.
 */
function initializeToken(t: B20Token, p: CreateParams): void {
  const st = t.st;
  if (t.variant === B20Variant.stablecoin) {
    if (p.currency.length === 0) throw FactoryError.missingRequiredField("currency");
    if (!isIsoCurrency(p.currency)) throw FactoryError.invalidCurrency(p.currency);
  }
  st.writeString(CoreSlot.name, p.name);
  st.writeString(CoreSlot.symbol, p.symbol);
  st.setSupplyCap(B20_MAX_SUPPLY_CAP);
  if (t.variant === B20Variant.asset) {
    st.setAssetDecimals(Number(p.decimals));
    st.setMultiplier(0n);
  } else st.writeString(STABLECOIN_CURRENCY_SLOT, p.currency);
}

/** The factory precompile handler over the given policy access (the engine installs it at {@link B20_FACTORY_ADDRESS} from Beryl). */
export function createB20FactoryHandler(deps: FactoryDeps): BasePrecompileHandler {
  return (ctx, input) => dispatchFactory(ctx, input, deps);
}
