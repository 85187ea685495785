/**
 * Constants of `src/chain/`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in `src/config/constants.ts`;
 * `scripts/splitConstants.mjs` places each constant in the lowest layer that uses it.
 */

/** The well-known test mnemonic of anvil and hardhat: the devnet's prefunded accounts. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
/** How many dev accounts are derived (anvil and hardhat both derive ten). */
export const DEV_ACCOUNT_COUNT = 10;
/** Balance of each dev account: 10,000 ether, as anvil and hardhat. */
export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n;
/**
 * Devnet chain id: 845337 ("8453", Base's id, + "37"): an OP Stack chain of its own, distinct
 * from Base (8453), Base Sepolia (84532) and anvil/hardhat's 31337, so wallets keep
 * separate nonces and replay protection holds.
 */
export const DEVNET_CHAIN_ID = 845337n;
/** Devnet block gas limit: Base mainnet's per-block gas limit order (geth dev mode uses 30M+). */
export const DEVNET_GAS_LIMIT = 60_000_000n;
/** Devnet: L1 base-fee scalar of the L1-attributes deposit — Base mainnet's value in block 21713817 (2269). */
export const DEVNET_BASE_FEE_SCALAR = 2_269n;
/** Devnet: L1 blob-base-fee scalar — Base mainnet's value in block 21713817 (1055762). */
export const DEVNET_BLOB_BASE_FEE_SCALAR = 1_055_762n;
/**
 * Devnet: Jovian minimum base fee (0.01 gwei). Nonzero so idle blocks cannot decay the base
 * fee to 0 and the BaseFeeVault always receives the base fee of each transaction.
 */
export const DEVNET_MIN_BASE_FEE_WEI = 10_000_000n;
/**
 * Chain id of basalt's local L1 (`--network devnet-l1`, the L1 of `basalt devnet rollup`): 900,
 * the L1 chain id of the OP Stack's own devnets (op-e2e, Kurtosis), so tooling recognizes it.
 */
export const DEVNET_L1_CHAIN_ID = 900n;
/** Chain id anvil and hardhat serve by default; a local rollup may settle on an anvil L1. */
export const ANVIL_CHAIN_ID = 31_337n;

// ---- Derivation: L1 inputs ----------------------------------------------------------------
/**
 * Topic 0 of the OptimismPortal's deposit event: keccak256("TransactionDeposited(address,address,uint256,bytes)")
 * (specs deposits.md "Deposit Contract"; kona crates/protocol/protocol/src/deposits.rs `DEPOSIT_EVENT_ABI_HASH`).
 */
export const TRANSACTION_DEPOSITED_TOPIC = "0xb3813568d9991fc951961fcb4c784893574240a28925604d09fc577c55bb7c32";
/** The only `TransactionDeposited` version derivation accepts (topic 3 = uint256 0; op-node deposit_log.go `DepositEventVersion0`). */
export const DEPOSIT_EVENT_VERSION_0 = 0n;
/**
 * Shortest version-0 `opaqueData`: mint uint256 (32) + value uint256 (32) + gasLimit uint64 (8) + isCreation uint8 (1);
 * the calldata is the rest (op-node deposit_log.go `unmarshalDepositVersion0`; kona deposits.rs).
 */
export const DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH = 73;
/**
 * Topic 0 of the SystemConfig's update event: keccak256("ConfigUpdate(uint256,uint8,bytes)")
 * (specs system-config.md; kona crates/protocol/genesis/src/system/mod.rs `CONFIG_UPDATE_TOPIC`).
 */
export const CONFIG_UPDATE_TOPIC = "0x1d2b0bda21d56b8bd12d4f94ebacffdfb35f5e226f84b461103bb8beab6353be";
/** The only `ConfigUpdate` version derivation accepts (topic 1 = uint256 0; specs system-config.md `CONFIG_VERSION`). */
export const CONFIG_UPDATE_VERSION_0 = 0n;
/** EIP-4844 `MIN_BASE_FEE_PER_BLOB_GAS`, also the L1-info blob base fee of an L1 header without blob fields (kona info/variant.rs `unwrap_or(1)`). */
export const MIN_BLOB_BASE_FEE = 1n;
/** EIP-4844 `BLOB_BASE_FEE_UPDATE_FRACTION` of Cancun (alloy-eips eip7840 `BlobParams::cancun`). */
export const BLOB_UPDATE_FRACTION_CANCUN = 3_338_477n;
/** EIP-7691 update fraction of Prague, kept by Osaka (alloy-eips eip7840 `BlobParams::prague` / `::osaka`). */
export const BLOB_UPDATE_FRACTION_PRAGUE = 5_007_716n;
/** Update fraction of the first blob-parameter-only fork, BPO1 (EIP-7892; alloy-eips eip7840 `BlobParams::bpo1`, target 10, max 15). */
export const BLOB_UPDATE_FRACTION_BPO1 = 8_346_193n;
/** Update fraction of BPO2 (EIP-7892; alloy-eips eip7840 `BlobParams::bpo2`, target 14, max 21). */
export const BLOB_UPDATE_FRACTION_BPO2 = 11_684_671n;
/** Ethereum mainnet Cancun activation (alloy-hardforks ethereum/mainnet.rs `MAINNET_CANCUN_TIMESTAMP`). */
export const L1_MAINNET_CANCUN_TIME = 1_710_338_135n;
/** Ethereum mainnet Prague activation (alloy-hardforks `MAINNET_PRAGUE_TIMESTAMP`). */
export const L1_MAINNET_PRAGUE_TIME = 1_746_612_311n;
/** Ethereum mainnet Osaka activation, epoch 411392 (alloy-hardforks `MAINNET_OSAKA_TIMESTAMP`). */
export const L1_MAINNET_OSAKA_TIME = 1_764_798_551n;
/**
 * Ethereum mainnet BPO1 activation, epoch 412672 (EIP-7892 schedule; go-ethereum-style mainnet chain configs and
 * fork-id tests; shared/reference derivation.md §1.10). One indexed alloy-hardforks snapshot still has 1765978199.
 */
export const L1_MAINNET_BPO1_TIME = 1_765_290_071n;
/** Ethereum mainnet BPO2 activation, epoch 419072 (alloy-hardforks `MAINNET_BPO2_TIMESTAMP`; go-ethereum-style mainnet configs). */
export const L1_MAINNET_BPO2_TIME = 1_767_747_671n;
/** Sepolia Cancun activation (alloy-hardforks ethereum/sepolia.rs `SEPOLIA_CANCUN_TIMESTAMP`). */
export const L1_SEPOLIA_CANCUN_TIME = 1_706_655_072n;
/** Sepolia Prague activation (alloy-hardforks `SEPOLIA_PRAGUE_TIMESTAMP`). */
export const L1_SEPOLIA_PRAGUE_TIME = 1_741_159_776n;
/** Sepolia Osaka activation (op-node `fallbackToOsakaCellProofTimeIfKnown` test; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_OSAKA_TIME = 1_760_427_360n;
/** Sepolia BPO1 activation (kona crates/protocol/registry/src/l1/mod.rs `SEPOLIA_BPO1_TIMESTAMP`; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_BPO1_TIME = 1_761_017_184n;
/** Sepolia BPO2 activation (kona registry l1/mod.rs `SEPOLIA_BPO2_TIMESTAMP`; geth `SepoliaChainConfig`). */
export const L1_SEPOLIA_BPO2_TIME = 1_761_607_008n;

// ---------------------------------------------------------------------------------------------
// Derivation: blobs (src/derivation/blobCodec.ts, kzg.ts, beaconClient.ts, beaconShim.ts)
// ---------------------------------------------------------------------------------------------

/** Bytes of one EIP-4844 blob: FIELD_ELEMENTS_PER_BLOB (4096) × BYTES_PER_FIELD_ELEMENT (32) (EIP-4844; consensus-specs deneb polynomial-commitments.md). */
export const BLOB_BYTES = 131_072;
/** Bytes of a KZG commitment and of a KZG proof: one compressed BLS12-381 G1 point (EIP-4844 `KZGCommitment`, `KZGProof`). */
export const KZG_POINT_BYTES = 48;
/** First byte of a versioned hash: EIP-4844 VERSIONED_HASH_VERSION_KZG (`0x01 ++ sha256(commitment)[1:]`). */
export const VERSIONED_HASH_VERSION_KZG = 0x01;

// ---- sequencer on a real L1 (local rollup) ------------------------------------------------
/**
 * Local rollup (`basalt devnet rollup`): seconds between L2 blocks, Base's 2 s, so the devnet's
 * flashblocks cadence (200 ms) gives the ten flashblocks per block Base publishes.
 */
export const DEVNET_ROLLUP_BLOCK_TIME_S = 2n;
/**
 * Local rollup: sequencing window in L1 blocks. 30: on a local L1 mining every 1–2 s the window
 * of an epoch runs out 30–60 s after its L1 block, so a test that stops the batcher sees the
 * verifier force empty batches within a minute or two; and it is still several times what a
 * batcher posting every few L1 blocks needs to land its batches in time (Base uses 3,600, 12 h).
 */
export const DEVNET_ROLLUP_SEQ_WINDOW_SIZE = 30n;
/**
 * Local rollup: `max_sequencer_drift` of rollup.json, 600 s (Base's and op-node's devnet value).
 * With Fjord active from genesis the protocol's 1,800 s applies instead; the field is written
 * because op-node tooling requires it.
 */
export const DEVNET_ROLLUP_MAX_SEQUENCER_DRIFT_S = 600n;
/** Local rollup: pre-Granite channel timeout in L1 blocks, 300 (Base's). Unused while Granite is active from genesis. */
export const DEVNET_ROLLUP_CHANNEL_TIMEOUT = 300n;
/** Local rollup: Granite channel timeout in L1 blocks, 50 (the protocol value op-node defaults `granite_channel_timeout` to). */
export const DEVNET_ROLLUP_CHANNEL_TIMEOUT_GRANITE = 50n;

// ---- L1 devnet (--network devnet-l1: block producer, beacon API, blob archive) --------------
/**
 * devnet-l1 block gas limit: the L2 devnet's 60M, room to deploy a rollup's L1 contracts (a few
 * million gas each) several to a block.
 */
export const L1DEV_GAS_LIMIT = 60_000_000n;
