/**
 * Execution rules shared by the call family and the transaction pool (a layer they both
 * import without an upward import): src/config/constants.ts holds the RPC limits.
 */

/**
 * EIP-7825 per-transaction gas cap (2^24), active on Base from Azul (the Osaka EIPs; revm
 * `TX_GAS_LIMIT_CAP`, geth `params.MaxTxGas`): the pool refuses transactions above it, and calls
 * and estimates lower the RPC gas cap to it where the fork enables the EIP.
 */
export const MAX_TX_GAS_EIP7825 = 16_777_216n;
