/**
 * Addresses of the OP Stack predeploys and system accounts the execution layer touches, as EIP-55
 * checksummed strings.
 *
 * Predeploy addresses: specs `specs/protocol/predeploys.md` (ethereum-optimism/specs@fd72cf79) and
 * `base/base@98a8db8d crates/consensus/protocol/src/predeploys.rs` (`Predeploys`). The fee-vault names
 * follow op-revm (`base/base@98a8db8d crates/execution/revm/src/constants.rs`: `BASE_FEE_RECIPIENT`,
 * `L1_FEE_RECIPIENT`, `OPERATOR_FEE_RECIPIENT`, `L1_BLOCK_CONTRACT`). On a real OP chain every `0x4200…`
 * predeploy is an ERC-1967 proxy (admin: the `ProxyAdmin` predeploy `0x4200…0018`) whose implementation lives at
 * `0xc0d3c0d3…c0d3` + the same suffix; WETH9 is the exception (not proxied).
 */
import { CREATE2_DEPLOYER_RUNTIME_CODE } from "./bytecode/create2Deployer.js";

/**
 * `L1Block` (L1 attributes) predeploy. The L1-info deposit calls it first in every block; op-revm reads the
 * L1 fee parameters straight from its storage (slots 1, 3, 5, 6, 7, 8; see `L1_BLOCK_CONTRACT` in op-revm).
 */
export const L1_BLOCK_ADDRESS = "0x4200000000000000000000000000000000000015";

/** `GasPriceOracle` predeploy: the on-chain view of the L1 data fee and operator fee (`getL1Fee`, `getOperatorFee`). */
export const GAS_PRICE_ORACLE_ADDRESS = "0x420000000000000000000000000000000000000F";

/**
 * `L2ToL1MessagePasser` predeploy (withdrawal initiation). From Isthmus on, the block header's
 * `withdrawalsRoot` carries the storage root of this account (specs isthmus/exec-engine.md).
 */
export const L2_TO_L1_MESSAGE_PASSER_ADDRESS = "0x4200000000000000000000000000000000000016";

/**
 * `SequencerFeeVault`: receives the priority fees, i.e. the block's `feeRecipient`/coinbase on OP chains
 * (derived payload attributes set `suggestedFeeRecipient` to this address; specs derivation.md).
 */
export const SEQUENCER_FEE_VAULT_ADDRESS = "0x4200000000000000000000000000000000000011";

/** `BaseFeeVault`: receives the burned-on-L1 base fee on OP chains (op-revm `BASE_FEE_RECIPIENT`). */
export const BASE_FEE_VAULT_ADDRESS = "0x4200000000000000000000000000000000000019";

/** `L1FeeVault`: receives the L1 data fee of every non-deposit transaction (op-revm `L1_FEE_RECIPIENT`). */
export const L1_FEE_VAULT_ADDRESS = "0x420000000000000000000000000000000000001A";

/** `OperatorFeeVault` (Isthmus+): receives the operator fee (op-revm `OPERATOR_FEE_RECIPIENT`). */
export const OPERATOR_FEE_VAULT_ADDRESS = "0x420000000000000000000000000000000000001b";

/** `WETH9` predeploy (wrapped ether; the only `0x4200…` predeploy that is not behind a proxy). */
export const WETH9_ADDRESS = "0x4200000000000000000000000000000000000006";

/**
 * The L1-info depositor account: `from` of the L1 attributes deposit and of the "GasPriceOracle enable <fork>"
 * upgrade deposits. `L1Block.setL1BlockValues*` and `GasPriceOracle.set<Fork>` revert for any other caller
 * (specs deposits.md "L1 Attributes Deposited Transaction").
 */
export const L1_INFO_DEPOSITOR_ADDRESS = "0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001";

/**
 * The `create2Deployer` preinstall, force-installed at Canyon (specs canyon overview: "Deploys the
 * create2Deployer to 0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2").
 *
 * op-geth `consensus/misc/create2deployer.go` `EnsureCreate2Deployer` (called from `core/state_processor.go`
 * and the miner before any transaction): when the chain is OP and `config.canyonTime == block.timestamp`
 * (exact equality, i.e. only in the Canyon activation block), it sets the account's code unconditionally
 * (`SetCode`; nonce and balance untouched). base/base (`crates/alloy/evm/src/canyon.rs`
 * `ensure_create2_deployer`) instead triggers when Canyon is active at `timestamp` but not at `timestamp - 2`.
 * A chain with Canyon active at genesis has no activation block and must carry the code in its genesis alloc.
 */
export const CREATE2_DEPLOYER_ADDRESS = "0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2";

/**
 * keccak256 of {@link CREATE2_DEPLOYER_CODE}: op-geth `create2DeployerCodeHash`, base/base
 * `CREATE_2_DEPLOYER_CODEHASH`.
 */
export const CREATE2_DEPLOYER_CODE_HASH = "0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2";

/** Runtime code installed at {@link CREATE2_DEPLOYER_ADDRESS} (1584 bytes; see `bytecode/create2Deployer.ts`). */
export const CREATE2_DEPLOYER_CODE: string = CREATE2_DEPLOYER_RUNTIME_CODE;

/**
 * EIP-4788 beacon block roots contract (`BEACON_ROOTS_ADDRESS` of the EIP). On OP chains it is deployed by
 * the Ecotone upgrade deposit from `0x0B799C86a49DEeb90402691F1041aa3AF2d3C875` (specs ecotone/derivation.md).
 */
export const BEACON_ROOTS_ADDRESS = "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02";

/**
 * EIP-2935 block hash history contract (`HISTORY_STORAGE_ADDRESS` of the EIP). On OP chains it is deployed by
 * the Isthmus upgrade deposit from `0x3462413Af4609098e1E27A490f554f260213D685` (specs isthmus/derivation.md).
 */
export const HISTORY_STORAGE_ADDRESS = "0x0000F90827F1C53a10cb7A02335B175320002935";
