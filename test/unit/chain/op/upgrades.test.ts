import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { RLP } from "@ethereumjs/rlp";
import { bytesToBigInt, createAddressFromString } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { describe, expect, it } from "vitest";
import { DEPOSIT_TX_TYPE, DepositTransaction } from "../../../../src/chain/op/depositTx.js";
import type { OpChainConfig } from "../../../../src/chain/op/forks.js";
import { upgradeSourceHash } from "../../../../src/chain/op/sourceHash.js";
import {
  OpUpgradeError,
  UPGRADE_FORKS,
  contractCreationAddress,
  upgradeDepositTransactions,
  upgradeDeposits,
  upgradeToCalldata,
  upgradeTransactions,
  upgradeTransactionsForBlock,
  type UpgradeFork,
} from "../../../../src/chain/op/upgrades.js";
import { to0x } from "../../../../src/util/bytes.js";

const ZERO = "0x0000000000000000000000000000000000000000";
const DEPOSITOR = "0xDeaDDEaDDeAdDeAdDEAdDEaddeAddEAdDEAd0001";
const L1_BLOCK = "0x4200000000000000000000000000000000000015";
const GPO = "0x420000000000000000000000000000000000000F";
const OFV = "0x420000000000000000000000000000000000001b";

/** A deployment's expected outcome: address and runtime-code hash. */
interface Deployed {
  address: string;
  codeHash: string;
}

/** Expected fields of one upgrade deposit. */
interface Expected {
  intent: string;
  sourceHash: string;
  from: string;
  to?: string;
  gas: bigint;
  /** Exact calldata, for calls. */
  data?: string;
  /** Creations: the contract the spec says this deploys. */
  deploys?: Deployed;
}

/**
 * Every value below is copied from the spec text (ethereum-optimism/specs@fd72cf79
 * specs/protocol/{ecotone,fjord,isthmus}/derivation.md "Network upgrade automation transactions"); Jovian from
 * op-node ethereum-optimism/optimism@6411f627 op-node/rollup/derive/jovian_upgrade_transactions.go, with the
 * source hashes asserted by base/base@98a8db8d crates/consensus/upgrades/src/jovian.rs tests (= kona@cdb9be24)
 * and the addresses / code hashes from specs jovian/derivation.md.
 */
const EXPECTED: Record<UpgradeFork, Expected[]> = {
  ecotone: [
    {
      intent: "Ecotone: L1 Block Deployment",
      sourceHash: "0x877a6077205782ea15a6dc8699fa5ebcec5e0f4389f09cb8eda09488231346f8",
      from: "0x4210000000000000000000000000000000000000",
      gas: 375_000n,
      deploys: {
        address: "0x07dbe8500fc591d1852B76feE44d5a05e13097Ff",
        codeHash: "0xc88a313aa75dc4fbf0b6850d9f9ae41e04243b7008cf3eadb29256d4a71c1dfd",
      },
    },
    {
      intent: "Ecotone: Gas Price Oracle Deployment",
      sourceHash: "0xa312b4510adf943510f05fcc8f15f86995a5066bd83ce11384688ae20e6ecf42",
      from: "0x4210000000000000000000000000000000000001",
      gas: 1_000_000n,
      deploys: {
        address: "0xb528D11cC114E026F138fE568744c6D45ce6Da7A",
        codeHash: "0x8b71360ea773b4cfaf1ae6d2bd15464a4e1e2e360f786e475f63aeaed8da0ae5",
      },
    },
    {
      intent: "Ecotone: L1 Block Proxy Update",
      sourceHash: "0x18acb38c5ff1c238a7460ebc1b421fa49ec4874bdf1e0a530d234104e5e67dbc",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe600000000000000000000000007dbe8500fc591d1852b76fee44d5a05e13097ff",
    },
    {
      intent: "Ecotone: Gas Price Oracle Proxy Update",
      sourceHash: "0xee4f9385eceef498af0be7ec5862229f426dec41c8d42397c7257a5117d9230a",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000b528d11cc114e026f138fe568744c6d45ce6da7a",
    },
    {
      intent: "Ecotone: Gas Price Oracle Set Ecotone",
      sourceHash: "0x0c1cb38e99dbc9cbfab3bb80863380b0905290b37eb3d6ab18dc01c1f3e75f93",
      from: DEPOSITOR,
      to: GPO,
      gas: 80_000n,
      data: "0x22b90ab3",
    },
    {
      intent: "Ecotone: beacon block roots contract deployment",
      sourceHash: "0x69b763c48478b9dc2f65ada09b3d92133ec592ea715ec65ad6e7f3dc519dc00c",
      from: "0x0B799C86a49DEeb90402691F1041aa3AF2d3C875",
      gas: 0x3d090n,
      data:
        "0x60618060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f358015604957" +
        "62001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500",
      deploys: {
        address: "0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02",
        // EIP-4788 runtime hash (not in the OP spec text; equals keccak of the EIP's runtime code).
        codeHash: "0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c",
      },
    },
  ],
  fjord: [
    {
      intent: "Fjord: Gas Price Oracle Deployment",
      sourceHash: "0x86122c533fdcb89b16d8713174625e44578a89751d96c098ec19ab40a51a8ea3",
      from: "0x4210000000000000000000000000000000000002",
      gas: 1_450_000n,
      deploys: {
        address: "0xa919894851548179A0750865e7974DA599C0Fac7",
        codeHash: "0xa88fa50a2745b15e6794247614b5298483070661adacb8d32d716434ed24c6b2",
      },
    },
    {
      intent: "Fjord: Gas Price Oracle Proxy Update",
      sourceHash: "0x1e6bb0c28bfab3dc9b36ffb0f721f00d6937f33577606325692db0965a7d58c6",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000a919894851548179a0750865e7974da599c0fac7",
    },
    {
      intent: "Fjord: Gas Price Oracle Set Fjord",
      sourceHash: "0xbac7bb0d5961cad209a345408b0280a0d4686b1b20665e1b0f9cdafd73b19b6b",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0x8e98b106",
    },
  ],
  isthmus: [
    {
      intent: "Isthmus: L1 Block Deployment",
      sourceHash: "0x3b2d0821ca2411ad5cd3595804d1213d15737188ae4cbd58aa19c821a6c211bf",
      from: "0x4210000000000000000000000000000000000003",
      gas: 425_000n,
      deploys: {
        address: "0xFf256497D61dcd71a9e9Ff43967C13fdE1F72D12",
        codeHash: "0x8e3fe7a416d3e5f3b7be74ddd4e7e58e516fa3f80b67c6d930e3cd7297da4a4b",
      },
    },
    {
      intent: "Isthmus: Gas Price Oracle Deployment",
      sourceHash: "0xfc70b48424763fa3fab9844253b4f8d508f91eb1f7cb11a247c9baec0afb8035",
      from: "0x4210000000000000000000000000000000000004",
      gas: 1_625_000n,
      deploys: {
        address: "0x93e57A196454CB919193fa9946f14943cf733845",
        codeHash: "0x4d195a9d7caf9fb6d4beaf80de252c626c853afd5868c4f4f8d19c9d301c2679",
      },
    },
    {
      intent: "Isthmus: Operator Fee Vault Deployment",
      sourceHash: "0x107a570d3db75e6110817eb024f09f3172657e920634111ce9875d08a16daa96",
      from: "0x4210000000000000000000000000000000000005",
      gas: 500_000n,
      deploys: {
        address: "0x4fa2Be8cd41504037F1838BcE3bCC93bC68Ff537",
        codeHash: "0x57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971",
      },
    },
    {
      intent: "Isthmus: L1 Block Proxy Update",
      sourceHash: "0xebe8b5cb10ca47e0d8bda8f5355f2d66711a54ddeb0ef1d30e29418c9bf17a0e",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe6000000000000000000000000ff256497d61dcd71a9e9ff43967c13fde1f72d12",
    },
    {
      intent: "Isthmus: Gas Price Oracle Proxy Update",
      sourceHash: "0xecf2d9161d26c54eda6b7bfdd9142719b1e1199a6e5641468d1bf705bc531ab0",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe600000000000000000000000093e57a196454cb919193fa9946f14943cf733845",
    },
    {
      intent: "Isthmus: Operator Fee Vault Proxy Update",
      sourceHash: "0xad74e1adb877ccbe176b8fa1cc559388a16e090ddbe8b512f5b37d07d887a927",
      from: ZERO,
      to: OFV,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000004fa2be8cd41504037f1838bce3bcc93bc68ff537",
    },
    {
      intent: "Isthmus: Gas Price Oracle Set Isthmus",
      sourceHash: "0x3ddf4b1302548dd92939826e970f260ba36167f4c25f18390a5e8b194b295319",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0x291b0383",
    },
    {
      intent: "Isthmus: EIP-2935 Contract Deployment",
      sourceHash: "0xbfb734dae514c5974ddf803e54c1bc43d5cdb4a48ae27e1d9b875a5a150b553a",
      from: "0x3462413Af4609098e1E27A490f554f260213D685",
      gas: 250_000n,
      data:
        "0x60538060095f395ff33373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f356001430381116042" +
        "57611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500",
      deploys: {
        address: "0x0000F90827F1C53a10cb7A02335B175320002935",
        codeHash: "0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d",
      },
    },
  ],
  jovian: [
    {
      intent: "Jovian: L1 Block Deployment",
      sourceHash: "0xbb1a656f65401240fac3db12e7a79ebb954b11e62f7626eb11691539b798d3bf",
      from: "0x4210000000000000000000000000000000000006",
      gas: 447_315n,
      deploys: {
        address: "0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C",
        codeHash: "0x5f885ca815d2cf27a203123e50b8ae204fdca910b6995d90b2d7700cbb9240d1",
      },
    },
    {
      intent: "Jovian: L1 Block Proxy Update",
      sourceHash: "0xf3275f829340521028f9ad5bce4ecb1c64a45d448794effa2a77674627338e76",
      from: ZERO,
      to: L1_BLOCK,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
    },
    {
      intent: "Jovian: Gas Price Oracle Deployment",
      sourceHash: "0x239b7021a6c2cf3a918481242bbb5a9499057f24501539467536c691bb133962",
      from: "0x4210000000000000000000000000000000000007",
      gas: 1_750_714n,
      deploys: {
        address: "0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1",
        codeHash: "0xe9fc7c96c4db0d6078e3d359d7e8c982c350a513cb2c31121adf5e1e8a446614",
      },
    },
    {
      intent: "Jovian: Gas Price Oracle Proxy Update",
      sourceHash: "0xa70c60aa53b8c1c0d52b39b1e901e7d7c09f7819595cb24048a6bb1983b401ff",
      from: ZERO,
      to: GPO,
      gas: 50_000n,
      data: "0x3659cfe60000000000000000000000004f1db3c6abd250ba86e0928471a8f7db3afd88f1",
    },
    {
      intent: "Jovian: Gas Price Oracle Set Jovian",
      sourceHash: "0xe836db6a959371756f8941be3e962d000f7e12a32e49e2c9ca42ba177a92716c",
      from: DEPOSITOR,
      to: GPO,
      gas: 90_000n,
      data: "0xb3d72079",
    },
  ],
};

/**
 * keccak256 (= deposit transaction hash) and byte length of op-rs/kona@cdb9be24
 * crates/protocol/hardforks/src/bytecode/{fork}_tx_{i}.hex, the encoded transactions kona's
 * `test_{fork}_txs_encoded` compares against (identical blobs in base/base@98a8db8d crates/consensus/upgrades).
 * kona has no encoded Jovian transactions for the final Jovian definition.
 */
const KONA_ENCODED: Partial<Record<UpgradeFork, [string, number][]>> = {
  ecotone: [
    ["0x50549bed9a83ba7238893970780b458ed3d543f299d6f69f7a5d0b32d7cd71a7", 1443],
    ["0xf8e8dd83c100c9eb137fa372cdda2cf854f79b6e8cfc604c5e54d970c05cb6dc", 4122],
    ["0x9f2b2d34dfa2cb55cceb9860cade0cb03cfbd7ff1dd07d48b4708b29a46b4a24", 121],
    ["0xedbfdad1f44ea830b863eac45eca4408398351b30511826012882059625963d2", 121],
    ["0x91f762393442ac507c6852211b62445d82c9b58bae34726ecef2f10b4156f027", 90],
    ["0x5b7915f2a55ce67519e6d8f65248918f4e62f545706af2bf02549bb9782c03f3", 173],
  ],
  fjord: [
    ["0xaafd55b14e021a2c04628606e42dbe58cc9c86b6ed695a8b9ccf258e28963e5e", 6235],
    ["0x2f63bbe08a66796dde569281a58a53e0b0f64b7aa067297e9c70455fb8e375bc", 121],
    ["0x7cedc4f1c428928cdfb9b340bda3060102c71ad23f982678471b222ba8a756e1", 90],
  ],
  isthmus: [
    ["0x4557f1142fedd52d571b070a290aa8683a03f7aac7929967858af7aab48cd4cc", 1811],
    ["0x9412bd3fa72eb1dbec94fd2297d44a8b86cb1f55966324e6cc7d57decc92c1f6", 7329],
    ["0xa9e6286eadd53ecf7bb2bff668c4fcb62305a8b3e4b584c30f7d4f90046ee75e", 2267],
    ["0xe992e00998b34075506d2726a274db07a62af6cdd9d527bfda9128114603cfbd", 121],
    ["0xb6560306ccb0e772b132a8a6dd78244c0d7ac270c80baba40f95006184926c30", 121],
    ["0xf162acc8ebbaf9237755736b62331a4817fe27bbbe3712f473ecfa8fee499f7c", 121],
    ["0xbf2fef09f73279373fce8acd2968ca4fd1d10ba88bf10993b6a69c33d913f01b", 90],
    ["0xf3ddde30514a8d00b0b92f14b9ce6b3170ea30f5f45b1afdc0905801134ffefe", 159],
  ],
};

/** The Ethereum rules each fork's activation block runs under (Ecotone = Cancun, Fjord = Cancun, Isthmus/Jovian = Prague). */
const ETH_RULES: Record<UpgradeFork, string> = {
  ecotone: Hardfork.Cancun,
  fjord: Hardfork.Cancun,
  isthmus: Hardfork.Prague,
  jovian: Hardfork.Prague,
};

/** Classic intrinsic gas of a contract-creation transaction (21000 + 32000 + calldata + EIP-3860 initcode words). */
function creationIntrinsicGas(data: Uint8Array): bigint {
  let gas = 53_000n + 2n * BigInt(Math.ceil(data.length / 32));
  for (const b of data) gas += b === 0 ? 4n : 16n;
  return gas;
}

const lower = (s: string | undefined): string | undefined => s?.toLowerCase();

describe("upgrade deposits: fields match the specs", () => {
  it("has the spec'd number of transactions per fork", () => {
    expect(UPGRADE_FORKS).toEqual(["ecotone", "fjord", "isthmus", "jovian"]);
    expect(upgradeDeposits("ecotone")).toHaveLength(6);
    expect(upgradeDeposits("fjord")).toHaveLength(3);
    expect(upgradeDeposits("isthmus")).toHaveLength(8);
    expect(upgradeDeposits("jovian")).toHaveLength(5);
  });

  for (const fork of UPGRADE_FORKS) {
    it(`${fork}: intent, source hash, from, to, gas, calldata of every deposit`, () => {
      const got = upgradeDeposits(fork);
      expect(got.map((d) => d.intent)).toEqual(EXPECTED[fork].map((e) => e.intent));
      got.forEach((d, i) => {
        const e = EXPECTED[fork][i] as Expected;
        expect(to0x(d.sourceHash), `${fork}[${i}] sourceHash`).toBe(e.sourceHash);
        expect(to0x(upgradeSourceHash(e.intent))).toBe(e.sourceHash);
        expect(lower(d.from)).toBe(lower(e.from));
        expect(lower(d.to)).toBe(lower(e.to));
        expect(d.gas).toBe(e.gas);
        expect(d.mint).toBe(0n);
        expect(d.value).toBe(0n);
        expect(d.isSystemTx).toBe(false);
        if (e.data !== undefined) expect(to0x(d.data)).toBe(e.data);
        if (e.deploys !== undefined) {
          expect(d.to).toBeUndefined();
          // Fresh deployer account: nonce 0.
          expect(contractCreationAddress(d.from, 0n)).toBe(e.deploys.address);
        }
      });
    });

    it(`${fork}: every creation deploys the spec'd code hash at the spec'd address within its gas limit`, async () => {
      const common = new Common({ chain: Mainnet, hardfork: ETH_RULES[fork] });
      for (const [i, d] of upgradeDeposits(fork).entries()) {
        const e = EXPECTED[fork][i] as Expected;
        if (e.deploys === undefined) continue;
        const evm = await createEVM({ common });
        const caller = createAddressFromString(d.from.toLowerCase());
        const res = await evm.runCall({ caller, origin: caller, data: d.data, gasLimit: d.gas - creationIntrinsicGas(d.data) });
        expect(res.execResult.exceptionError, `${e.intent}: ${res.execResult.exceptionError?.error}`).toBeUndefined();
        expect(res.createdAddress?.toString()).toBe(e.deploys.address.toLowerCase());
        expect(to0x(keccak_256(res.execResult.returnValue)), e.intent).toBe(e.deploys.codeHash);
      }
    });

    it(`${fork}: encodings decode back to the deposit fields`, () => {
      const deposits = upgradeDeposits(fork);
      const txs = upgradeTransactions(fork);
      expect(txs).toHaveLength(deposits.length);
      txs.forEach((tx, i) => {
        const d = deposits[i]!;
        expect(tx[0]).toBe(DEPOSIT_TX_TYPE);
        const fields = RLP.decode(tx.subarray(1)) as Uint8Array[];
        expect(fields).toHaveLength(8);
        expect(to0x(fields[0]!)).toBe(to0x(d.sourceHash));
        expect(to0x(fields[1]!)).toBe(d.from.toLowerCase());
        expect(to0x(fields[2]!)).toBe(d.to === undefined ? "0x" : d.to.toLowerCase());
        expect(fields[3]).toHaveLength(0); // mint 0 → empty string
        expect(fields[4]).toHaveLength(0); // value 0 → empty string
        expect(bytesToBigInt(fields[5]!)).toBe(d.gas);
        expect(fields[6]).toHaveLength(0); // isSystemTx false → 0x80
        expect(to0x(fields[7]!)).toBe(to0x(d.data));
      });
    });
  }

  for (const [fork, hashes] of Object.entries(KONA_ENCODED) as [UpgradeFork, [string, number][]][]) {
    it(`${fork}: encoded transactions equal kona's .hex files byte for byte (keccak + length)`, () => {
      const txs = upgradeTransactions(fork);
      expect(txs.map((t) => [to0x(keccak_256(t)), t.length])).toEqual(hashes);
    });
  }

  it("Jovian intents follow op-node/base/kona, not the (divergent) specs jovian/derivation.md @fd72cf79", () => {
    // The spec text lists "Jovian: L1Block Deployment" with source hash 0x98faf23b…; the node implementations do not use it.
    const specHash = "0x98faf23b9795967bc0b1c543144739d50dba3ea40420e77ad6ca9848dbfb62e8";
    expect(to0x(upgradeSourceHash("Jovian: L1Block Deployment"))).toBe(specHash);
    expect(upgradeDeposits("jovian").map((d) => to0x(d.sourceHash))).not.toContain(specHash);
  });
});

describe("upgrade helpers", () => {
  it("computes CREATE addresses (spec: EIP-4788 deployer nonce 1 → 0xE3aE1Ae5…)", () => {
    expect(contractCreationAddress("0x0B799C86a49DEeb90402691F1041aa3AF2d3C875", 1n)).toBe("0xE3aE1Ae551eeEda337c0BfF6C4c7cbA98dce353B");
    expect(contractCreationAddress("0x4210000000000000000000000000000000000007", 0n)).toBe("0x4f1db3c6AbD250ba86E0928471A8F7DB3AFd88F1");
  });

  it("builds upgradeTo calldata", () => {
    expect(to0x(upgradeToCalldata("0x3Ba4007f5C922FBb33C454B41ea7a1f11E83df2C"))).toBe(
      "0x3659cfe60000000000000000000000003ba4007f5c922fbb33c454b41ea7a1f11e83df2c",
    );
  });

  it("exposes the deposits as DepositTransaction objects with the same bytes and hashes", () => {
    for (const fork of UPGRADE_FORKS) {
      const objs = upgradeDepositTransactions(fork);
      const enc = upgradeTransactions(fork);
      expect(objs.map((t) => to0x(t.serialize()))).toEqual(enc.map(to0x));
      expect(objs.map((t) => to0x(t.hash()))).toEqual(enc.map((b) => to0x(keccak_256(b))));
      // Round trip through the generic deposit decoder.
      expect(enc.map((b) => to0x(DepositTransaction.fromSerialized(b).sourceHash))).toEqual(upgradeDeposits(fork).map((d) => to0x(d.sourceHash)));
    }
  });

  it("rejects bad input with typed errors", () => {
    expect(() => upgradeDeposits("holocene" as UpgradeFork)).toThrowError(OpUpgradeError);
    try {
      upgradeTransactions("granite" as UpgradeFork);
      expect.unreachable();
    } catch (e) {
      expect((e as OpUpgradeError).code).toBe("OP_UPGRADE_UNKNOWN_FORK");
    }
    expect(() => contractCreationAddress("0x1234", 0n)).toThrowError(/20-byte hex address/);
    expect(() => contractCreationAddress(ZERO, -1n)).toThrowError(OpUpgradeError);
  });

  it("returns fresh copies, so callers cannot corrupt the memoized data", () => {
    const a = upgradeTransactions("fjord");
    a[0]![0] = 0;
    const d = upgradeDeposits("fjord");
    d[0]!.data[0] = 0;
    d[0]!.sourceHash[0] = 0;
    expect(upgradeTransactions("fjord")[0]![0]).toBe(DEPOSIT_TX_TYPE);
    expect(to0x(upgradeDeposits("fjord")[0]!.sourceHash)).toBe(EXPECTED.fjord[0]!.sourceHash);
    expect(upgradeDeposits("fjord")[0]!.data[0]).toBe(0x60);
  });
});

describe("upgradeTransactionsForBlock", () => {
  const cfg = (forkTimes: OpChainConfig["forkTimes"]): OpChainConfig => ({
    forkTimes,
    eip1559Elasticity: 6,
    eip1559Denominator: 50,
    eip1559DenominatorCanyon: 250,
  });
  const hashes = (txs: Uint8Array[]) => txs.map((t) => to0x(keccak_256(t)));

  it("inserts a fork's transactions only in its activation block", () => {
    const c = cfg({ ecotone: 0n, fjord: 0n, isthmus: 0n, jovian: 1000n });
    expect(hashes(upgradeTransactionsForBlock(c, 1000n, 998n))).toEqual(hashes(upgradeTransactions("jovian")));
    expect(upgradeTransactionsForBlock(c, 1001n, 999n)).toHaveLength(5); // first block at/after the fork time
    expect(upgradeTransactionsForBlock(c, 1002n, 1000n)).toEqual([]);
    expect(upgradeTransactionsForBlock(c, 998n, 996n)).toEqual([]);
  });

  it("forks active at genesis have no activation block", () => {
    const c = cfg({ ecotone: 0n, fjord: 0n, isthmus: 0n, jovian: 0n });
    expect(upgradeTransactionsForBlock(c, 0n, undefined)).toEqual([]);
    expect(upgradeTransactionsForBlock(c, 2n, 0n)).toEqual([]);
  });

  it("concatenates forks activating together in fork order", () => {
    const c = cfg({ ecotone: 10n, fjord: 10n, isthmus: 10n, jovian: 10n });
    const all = UPGRADE_FORKS.flatMap((f) => upgradeTransactions(f));
    expect(hashes(upgradeTransactionsForBlock(c, 10n, 8n))).toEqual(hashes(all));
    expect(all).toHaveLength(22);
  });
});
