/**
 * The derivation worker runs on the worker host: a start it refuses (the L1 RPC serves another
 * chain than the rollup settles on) fails the service's start with DerivationStartError, rebuilt
 * as its class by the host's registry, with the code and message it had before the host.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { devnetRollupConfig } from "../../../src/chain/devnetRollup.js";
import { ANVIL_CHAIN_ID } from "../../../src/chain/constants.js";
import { DerivationService, DerivationStartError } from "../../../src/derivation/service.js";

describe("DerivationService start", () => {
  const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-derivation-start-"));
  let chain: Chain | undefined;
  let l1: Server | undefined;
  afterAll(async () => {
    await chain?.close();
    await new Promise<void>((r) => (l1 === undefined ? r() : l1.close(() => r())));
    rmSync(datadir, { recursive: true, force: true });
  });

  it("rejects with DerivationStartError when the L1 RPC serves another chain", async () => {
    await Chain.init(datadir, devnetGenesis());
    chain = Chain.open(datadir, { logger: pino({ level: "silent" }) });
    // An L1 RPC of chain 1 (the rollup settles on anvil's chain); other methods fail.
    l1 = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const r = JSON.parse(body) as { id: number; method: string };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(r.method === "eth_chainId" ? { jsonrpc: "2.0", id: r.id, result: "0x1" } : { jsonrpc: "2.0", id: r.id, error: { code: -32601, message: "not served" } }));
      });
    });
    await new Promise<void>((r) => l1!.listen(0, "127.0.0.1", r));
    const port = (l1.address() as { port: number }).port;
    const cfg = devnetRollupConfig({
      l1ChainId: ANVIL_CHAIN_ID,
      l1Anchor: { hash: "0x" + "ab".repeat(32), number: 0n, timestamp: 0n },
      l2GenesisHash: "0x" + "cd".repeat(32),
      portal: "0x" + "01".repeat(20),
      systemConfig: "0x" + "02".repeat(20),
      batcher: "0x" + "03".repeat(20),
      batchInbox: "0xff00000000000000000000000000000000000000",
    });
    const service = new DerivationService(chain, cfg, { datadir, l1Rpc: `http://127.0.0.1:${port}`, l1BlockTimeS: 1, logLevel: "error", logFormat: "json" }, pino({ level: "silent" }));
    const e = await service.start().then(
      () => undefined,
      (x: unknown) => x,
    );
    await service.stop();
    expect(e).toBeInstanceOf(DerivationStartError);
    expect((e as DerivationStartError).code).toBe("DERIVATION_START_FAILED");
    expect((e as DerivationStartError).meta.reason).toBe("DERIVATION_WRONG_L1_CHAIN");
    expect((e as Error).message).toMatch(/^derivation cannot start: --l1.rpc serves chain 1, but the rollup settles on L1 chain /);
  }, 30_000);
});
