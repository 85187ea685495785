/**
 * The fast EVM's changes written into basalt's block overlay ({@link OverlayStateManager}),
 * which computes the state root and the change set the store commits.
 */
import type { OverlayStateManager } from "../state/overlayStateManager.js";
import type { StateSink } from "./state.js";

/** A {@link StateSink} over `overlay`. */
export function overlaySink(overlay: OverlayStateManager): StateSink {
  return {
    putAccountFields: (address, nonce, balance, codeHash, hasStorage) => overlay.putAccountFieldsSync(address, nonce, balance, codeHash, hasStorage),
    deleteAccount: (address) => overlay.deleteAccountSync(address),
    wipeStorage: (address) => overlay.wipeStorageSync(address),
    putStorageValue: (address, slot, value) => overlay.putStorageSync(address, slot, value),
    putCode: (codeHash, code) => overlay.putCodeByHash(codeHash, code),
  };
}
