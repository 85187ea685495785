/** --http.api / --ws.api namespace selection (rpc/namespaces.ts). */
import { describe, expect, it } from "vitest";
import { namespaceOf, selectNamespaces, UnknownNamespaceError } from "../../../src/rpc/namespaces.js";
import type { MethodTable } from "../../../src/rpc/types.js";

const noop = (): null => null;
const table: MethodTable = { eth_chainId: noop, eth_call: noop, net_version: noop, debug_traceTransaction: noop, trace_block: noop, web3_clientVersion: noop };

describe("selectNamespaces", () => {
  it("serves everything without the option", () => {
    expect(selectNamespaces(table, undefined, "http.api")).toBe(table);
  });

  it("keeps only the listed namespaces (trimmed, case-insensitive)", () => {
    expect(Object.keys(selectNamespaces(table, " ETH, net ,", "http.api")).sort()).toEqual(["eth_call", "eth_chainId", "net_version"]);
    expect(Object.keys(selectNamespaces(table, "debug,trace", "ws.api")).sort()).toEqual(["debug_traceTransaction", "trace_block"]);
  });

  it("refuses a namespace no method has, naming the option and the known ones", () => {
    expect(() => selectNamespaces(table, "eth,debg", "http.api")).toThrow(UnknownNamespaceError);
    expect(() => selectNamespaces(table, "eth,debg", "http.api")).toThrow(/--http\.api: unknown namespace "debg"; expected some of debug, eth, net, trace, web3/);
  });

  it("takes the namespace before the first underscore", () => {
    expect(namespaceOf("eth_getBlockByNumber")).toBe("eth");
    expect(namespaceOf("opp2p_self")).toBe("opp2p");
    expect(namespaceOf("weird")).toBe("weird");
  });
});
