/**
 * The fixed addresses of Base's native precompiles (base/base `crates/common/precompiles`).
 * Each constant names the base/base source it was read from; all were cross-checked against
 * `../shared/fixtures/base-upgrades/b20_abi_facts.json` (`constants.addresses`) where listed there.
 *
 * B-20 token addresses are not singletons (`0xb2 ‖ 00×9 ‖ variant ‖ keccak(creator, salt)[0..9]`);
 * the factory code derives them.
 */

/** 20-byte address from 40 hex digits (no 0x). */
function addr(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/**
 * ActivationRegistry, installed from Beryl: `ActivationRegistryStorage::ADDRESS`
 * (`activation/storage.rs` @6a7dbe8a; an early pre-release version used `0x8453…00ff`).
 */
export const ACTIVATION_REGISTRY_ADDRESS = addr("8453000000000000000000000000000000000001");

/** PolicyRegistry, installed from Beryl: `PolicyRegistryStorage::ADDRESS` (`policy/storage.rs` @01fe233a). */
export const POLICY_REGISTRY_ADDRESS = addr("8453000000000000000000000000000000000002");

/** B20Factory, installed from Beryl (`b20_factory/storage.rs` @01fe233a; base/docs constants page @5bf2799f). */
export const B20_FACTORY_ADDRESS = addr("b20f000000000000000000000000000000000000");

/**
 * EIP-8130 transaction-context precompile (`TxContextStorage::ADDRESS`, `tx_context/storage.rs`
 * @0050129b; PR base/base#3121 "gated behind the Cobalt hardfork"). base/base installs it from
 * Cobalt (`provider.rs` @05358dd1 `install_with_observer`: `upgrade >= Cobalt` → `TxContext::install`);
 * logic in `eip8130/`.
 */
export const TX_CONTEXT_ADDRESS = addr("813000000000000000000000000000000000aa02");

/**
 * EIP-8130 2D nonce manager (`NonceManagerStorage::ADDRESS`, `nonce/storage.rs` @0d23e95b, PR
 * base/base#3121), installed from Cobalt like {@link TX_CONTEXT_ADDRESS}; logic in `eip8130/`.
 */
export const NONCE_MANAGER_ADDRESS = addr("813000000000000000000000000000000000aa01");
