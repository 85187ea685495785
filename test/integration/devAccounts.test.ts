/**
 * The devnet's unlocked accounts through the method table, on a sealing devnet: eth_accounts,
 * eth_sendTransaction (nonce, fees and gas filled in; type 2, or 0 with a gasPrice; a contract
 * creation), eth_signTransaction, eth_sign / personal_sign (EIP-191, recovering to the account),
 * eth_signTypedData_v4 (EIP-712: the EIP's own example digest, and a signature recovering to the
 * account); geth's "unknown account" for any other sender.
 */
import { createTxFromRLP } from "@ethereumjs/tx";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { hashTypedData, type TypedData } from "../../src/chain/eip712.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { devAccountMethods } from "../../src/rpc/methods/devAccounts.js";
import { stateMethods } from "../../src/rpc/methods/state.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-dev-accounts-");
const accounts = devAccounts();
const a0 = accounts[0]!.address.toLowerCase();
const a1 = accounts[1]!.address.toLowerCase();
const ETH = 10n ** 18n;

/** The address that signed `digest` with a 65-byte `r ‖ s ‖ v` (v 27/28) signature. */
function signer(digest: Uint8Array, sig: string): string {
  const b = Buffer.from(sig.slice(2), "hex");
  expect(b.length).toBe(65);
  expect([27, 28]).toContain(b[64]);
  const recovered = Buffer.concat([Buffer.from([b[64]! - 27]), b.subarray(0, 64)]);
  const pub = secp256k1.recoverPublicKey(recovered, digest, { prehash: false });
  const uncompressed = secp256k1.Point.fromBytes(pub).toBytes(false);
  return to0x(keccak256(uncompressed.subarray(1)).subarray(12));
}

const personal = (m: Uint8Array): Uint8Array => keccak256(Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${m.length}`), m]));

/** The example of EIP-712 itself (Mail from Cow to Bob). */
const MAIL: TypedData = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "version", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" },
    ],
    Person: [
      { name: "name", type: "string" },
      { name: "wallet", type: "address" },
    ],
    Mail: [
      { name: "from", type: "Person" },
      { name: "to", type: "Person" },
      { name: "contents", type: "string" },
    ],
  },
  primaryType: "Mail",
  domain: { name: "Ether Mail", version: "1", chainId: 1, verifyingContract: "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC" },
  message: {
    from: { name: "Cow", wallet: "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" },
    to: { name: "Bob", wallet: "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB" },
    contents: "Hello, Bob!",
  },
};

describe("devnet unlocked accounts", () => {
  let dev: SealingDevnet;
  let m: MethodTable;

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    const backend = devBackend(dev);
    m = { ...blockMethods(backend), ...stateMethods(backend), ...devAccountMethods(backend, accounts) };
  }, 60_000);

  afterAll(async () => {
    await dev?.close();
  });

  it("eth_accounts lists the prefunded accounts", async () => {
    expect(await callTable(m, "eth_accounts", [])).toEqual(accounts.map((a) => a.address.toLowerCase()));
  });

  it("eth_sendTransaction fills nonce, fees and gas, signs with the dev key and submits", async () => {
    const before = BigInt((await callTable(m, "eth_getBalance", [a1, "latest"])) as string);
    const h1 = (await callTable(m, "eth_sendTransaction", [{ from: a0, to: a1, value: `0x${ETH.toString(16)}` }])) as string;
    // A second one right after: the nonce comes from the pending state (the pool).
    const h2 = (await callTable(m, "eth_sendTransaction", [{ from: a0, to: a1, value: "0x1", gasPrice: "0x3b9aca00" }])) as string;
    // A contract creation: gas estimated for the init code (returns a 1-byte runtime).
    const h3 = (await callTable(m, "eth_sendTransaction", [{ from: a0, data: "0x600160005360016000f3" }])) as string;
    await dev.seq.sealOne();
    const tx1 = (await callTable(m, "eth_getTransactionByHash", [h1])) as { type: string; nonce: string; from: string; gas: string; maxFeePerGas: string };
    const tx2 = (await callTable(m, "eth_getTransactionByHash", [h2])) as { type: string; nonce: string; gasPrice: string };
    expect([tx1.type, tx1.nonce, tx1.from, tx1.gas]).toEqual(["0x2", "0x0", a0, "0x5208"]);
    expect([tx2.type, tx2.nonce, tx2.gasPrice]).toEqual(["0x0", "0x1", "0x3b9aca00"]);
    for (const h of [h1, h2, h3]) expect(((await callTable(m, "eth_getTransactionReceipt", [h])) as { status: string }).status).toBe("0x1");
    const created = ((await callTable(m, "eth_getTransactionReceipt", [h3])) as { contractAddress: string }).contractAddress;
    expect(await callTable(m, "eth_getCode", [created, "latest"])).toBe("0x01");
    expect(BigInt((await callTable(m, "eth_getBalance", [a1, "latest"])) as string)).toBe(before + ETH + 1n);
  });

  it("eth_signTransaction answers geth's {raw, tx} without submitting", async () => {
    const r = (await callTable(m, "eth_signTransaction", [{ from: a1, to: a0, value: "0x5", gas: "0x5208" }])) as { raw: string; tx: { hash: string; nonce: string } };
    const decoded = createTxFromRLP(Buffer.from(r.raw.slice(2), "hex"), { common: commonFromGenesis(devnetGenesis()) });
    expect(to0x(decoded.hash())).toBe(r.tx.hash);
    expect(to0x(decoded.getSenderAddress().bytes)).toBe(a1);
    expect(dev.pool.get(decoded.hash())).toBeUndefined();
  });

  it("eth_sign and personal_sign: EIP-191 signatures recovering to the account", async () => {
    const msg = Buffer.from("hello basalt");
    const sig = (await callTable(m, "eth_sign", [a0, to0x(msg)])) as string;
    expect(signer(personal(msg), sig)).toBe(a0);
    expect(await callTable(m, "personal_sign", [to0x(msg), a0])).toBe(sig);
  });

  it("eth_signTypedData_v4: EIP-712's example digest, and a signature recovering to the account", async () => {
    expect(to0x(hashTypedData(MAIL))).toBe("0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2");
    const sig = (await callTable(m, "eth_signTypedData_v4", [a0, JSON.stringify(MAIL)])) as string;
    expect(signer(hashTypedData(MAIL), sig)).toBe(a0);
    expect(await callTable(m, "eth_signTypedData_v4", [a0, MAIL])).toBe(sig);
    expect((await callTableError(m, "eth_signTypedData_v4", [a0, { ...MAIL, primaryType: "Letter" }])).code).toBe(-32602);
  });

  it("refuses any other account with geth's answer", async () => {
    const other = "0x" + "12".repeat(20);
    expect(await callTableError(m, "eth_sendTransaction", [{ from: other, to: a0 }])).toEqual({ code: -32000, message: "unknown account" });
    expect(await callTableError(m, "eth_sign", [other, "0x00"])).toEqual({ code: -32000, message: "unknown account" });
    expect((await callTableError(m, "eth_sendTransaction", [{ to: a0 }])).code).toBe(-32602);
  });
});
