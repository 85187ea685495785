/** Shared material of the derivation codec tests: the typed-error catcher and the OP Mainnet batch fixtures' place. */
import path from "node:path";
import { expect } from "vitest";
import { DerivationCodecError } from "../../src/derivation/codecErrors.js";
import { REPO_ROOT } from "./basaltProcess.js";

/** /work/shared/fixtures/op/derivation: real OP Mainnet batch data (README there). */
export const DERIVATION_FIXTURES = path.join(REPO_ROOT, "..", "shared", "fixtures", "op", "derivation");

/** The error `fn` throws, which must be a {@link DerivationCodecError}. */
export function codecError(fn: () => unknown): DerivationCodecError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(DerivationCodecError);
    return e as DerivationCodecError;
  }
  throw new Error("expected a DerivationCodecError, nothing was thrown");
}
