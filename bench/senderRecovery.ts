/**
 * Bench: decode + sender recovery per transaction over the execution-apis chain, with the
 * crypto in use (native bindings unless BASALT_NATIVE_CRYPTO=0). Run both ways to compare.
 */
import { createBlockFromRLP } from "@ethereumjs/block";
import { readFileSync } from "node:fs";
import { commonFromGenesis } from "../src/chain/chainSpec.js";
import { splitRlpItems } from "../src/chain/rlpFile.js";
import { nativeCryptoActive } from "../src/chain/crypto.js";
import { sharedFixture } from "./fixtures.js";

const common = commonFromGenesis(JSON.parse(readFileSync(sharedFixture("execution-apis/prague/genesis.json"), "utf8")));
const raws = [...splitRlpItems(readFileSync(sharedFixture("execution-apis/prague/chain.rlp")))].map((x) => x.bytes);
const ROUNDS = 10;
let n = 0;
const t0 = performance.now();
for (let k = 0; k < ROUNDS; k++) {
  for (const r of raws) {
    const b = createBlockFromRLP(r, { common: common.copy(), setHardfork: true, skipConsensusFormatValidation: true });
    for (const tx of b.transactions) {
      tx.getSenderAddress();
      n++;
    }
  }
}
const us = ((performance.now() - t0) * 1000) / n;
console.log(JSON.stringify({ bench: "sender-recovery", native: nativeCryptoActive(), transactions: n, microsecondsPerTx: Number(us.toFixed(1)) }));
