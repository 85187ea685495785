/**
 * The execution-layer record entries of Base's discv5 network: `opel` in the EIP-868 form
 * `[[forkhash, forknext]]` against reth's `EnrForkIdEntry` vector
 * (crates/net/discv4 `test_enr_forkid_entry_encode`: `c7c684dce96c2d80`), `base` as an RLP
 * string, both through a signed @chainsafe/enr record and back, and which records are dial
 * candidates (base/base `BaseDiscoveryFilter`: any `base`, else a compatible `opel`).
 */
import { RLP } from "@ethereumjs/rlp";
import { ENR, SignableENR } from "@chainsafe/enr";
import { privateKeyFromRaw } from "@libp2p/crypto/keys";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BASE_ENR_KEY, decodeOpelEntry, elEnrFilter, OPEL_ENR_KEY, opelEntry } from "../../../../src/p2p/el/elEnr.js";
import { ForkFilter } from "../../../../src/p2p/el/forkId.js";

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("opel and base ENR entries", () => {
  it("encodes the fork id as reth's EnrForkIdEntry and reads it back, trailing items ignored", () => {
    const f = { hash: Uint8Array.from([0xdc, 0xe9, 0x6c, 0x2d]), next: 0n };
    expect(hex(RLP.encode(opelEntry(f) as never))).toBe("c7c684dce96c2d80");
    expect(decodeOpelEntry(RLP.decode(Uint8Array.from(Buffer.from("c7c684dce96c2d80", "hex"))))).toEqual(f);
    expect(decodeOpelEntry(RLP.decode(RLP.encode([[f.hash, Uint8Array.of(0x6a, 0x2b, 0x3c, 0x10)], Uint8Array.of(1)])))).toEqual({ hash: f.hash, next: 0x6a2b3c10n });
    expect(decodeOpelEntry(f.hash)).toBeUndefined();
    expect(decodeOpelEntry([[Uint8Array.of(1, 2, 3), new Uint8Array(0)]])).toBeUndefined();
  });

  it("survives a signed record's encoding: opel stays a list, base a string", () => {
    const enr = SignableENR.createFromPrivateKey(privateKeyFromRaw(randomBytes(32)) as never);
    enr.ip = "10.0.0.1";
    enr.tcp = 30303;
    enr.udp = 9200;
    enr.set(OPEL_ENR_KEY, opelEntry({ hash: Uint8Array.of(0x68, 0x64, 0x7e, 0x86), next: 0n }) as unknown as Uint8Array);
    enr.set(BASE_ENR_KEY, new TextEncoder().encode("basalt/v1.0.0"));
    const back = ENR.decodeTxt(enr.encodeTxt());
    expect(decodeOpelEntry(back.kvs.get(OPEL_ENR_KEY))).toEqual({ hash: Uint8Array.of(0x68, 0x64, 0x7e, 0x86), next: 0n });
    expect(new TextDecoder().decode(back.kvs.get(BASE_ENR_KEY))).toBe("basalt/v1.0.0");
    // The record as RLP: the opel value is the list c7c68468647e8680.
    expect(hex(back.encode())).toContain("846f70656cc7c68468647e8680");
  });
});

describe("which records are peers", () => {
  const genesis = new Uint8Array(32).fill(7);
  const forks = ForkFilter.create(genesis, 0n, [], [100n, 200n]);
  const head = { number: 50n, timestamp: 150n };
  const kvs = (entries: [string, unknown][]): Map<string, unknown> => new Map(entries);

  it("takes any record with a base entry, whatever its value and fork id", () => {
    expect(elEnrFilter(kvs([[BASE_ENR_KEY, new TextEncoder().encode("0.8.0")]]), forks, head)).toBeUndefined();
    expect(elEnrFilter(kvs([[BASE_ENR_KEY, new Uint8Array(0)], [OPEL_ENR_KEY, opelEntry({ hash: Uint8Array.of(0xde, 0xad, 0xbe, 0xef), next: 0n })]]), forks, head)).toBeUndefined();
  });

  it("takes an opel fork id that passes EIP-2124 and refuses the others", () => {
    expect(elEnrFilter(kvs([[OPEL_ENR_KEY, opelEntry(forks.forkId(head))]]), forks, head)).toBeUndefined();
    // A peer still before the fork at 100 that knows it is coming: compatible (it is syncing).
    expect(elEnrFilter(kvs([[OPEL_ENR_KEY, opelEntry(forks.forkId({ number: 0n, timestamp: 50n }))]]), forks, head)).toBeUndefined();
    expect(elEnrFilter(kvs([[OPEL_ENR_KEY, opelEntry({ hash: Uint8Array.of(0xde, 0xad, 0xbe, 0xef), next: 0n })]]), forks, head)).toBe("opelIncompatible");
    expect(elEnrFilter(kvs([[OPEL_ENR_KEY, Uint8Array.of(1, 2)]]), forks, head)).toBe("opelMalformed");
    expect(elEnrFilter(kvs([["opstack", Uint8Array.of(1)]]), forks, head)).toBe("noBaseOrOpel");
  });
});
