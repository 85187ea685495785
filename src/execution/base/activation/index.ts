/**
 * Base's ActivationRegistry (`0x8453…0001`): feature switches for the native precompiles. See
 * {@link ./registry.ts} for the behaviour, its sources and the storage layout.
 */
export {
  ACTIVATION_ADMIN_SLOT,
  ACTIVATION_FEATURES_SLOT,
  ACTIVATION_REGISTRY_ROOT,
  ActivationSelectors,
  B20_ASSET_FEATURE,
  B20_STABLECOIN_FEATURE,
  BASE_MAINNET_ACTIVATION_ADMIN,
  BASE_SEPOLIA_ACTIVATION_ADMIN,
  POLICY_REGISTRY_FEATURE,
  activationAdminConfigFor,
  activationRegistryHandler,
  ensureFeatureActivated,
  isFeatureActivated,
  stateBackedActivationAdmin,
  staticActivationAdmin,
  type ActivationAdminConfig,
} from "./registry.js";
