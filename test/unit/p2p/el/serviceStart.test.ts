/**
 * The devp2p worker runs on the worker host: a start it cannot make (the TCP port taken) fails
 * the service's start with DevP2PStartError, rebuilt as its class; a started service answers
 * admin_addPeer through a host request (a refused enode as DevP2PStartError, as before the host)
 * and, once stopped, answers false.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { Chain } from "../../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../../src/chain/devnet.js";
import { DevP2PStartError } from "../../../../src/p2p/el/errors.js";
import { DevP2PService, type DevP2PServiceOptions } from "../../../../src/p2p/el/service.js";

describe("DevP2PService on the worker host", () => {
  const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-devp2p-start-"));
  let chain: Chain | undefined;
  let held: Server | undefined;
  const services: DevP2PService[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await chain?.close();
    await new Promise<void>((r) => (held === undefined ? r() : held.close(() => r())));
    rmSync(datadir, { recursive: true, force: true });
  });

  const options = (port: number): DevP2PServiceOptions => ({
    clientId: "basalt/test",
    addr: "127.0.0.1",
    port,
    discoveryAddr: "127.0.0.1",
    discv4: false,
    discoveryPort: 0,
    discv5: false,
    discv5Port: 0,
    discv5ProtocolId: "basev0",
    externalIp: undefined,
    discv4Bootnodes: [],
    discv5Bootnodes: [],
    trustedPeers: [],
    maxInbound: 10,
    maxOutbound: 10,
    txGossip: false,
    poolTxTypes: [0, 1, 2, 4],
    datadir,
    secretKeyPath: path.join(datadir, "nodekey"),
    logLevel: "error",
    logFormat: "json",
  });

  it("rejects start with DevP2PStartError when the TCP port is in use", async () => {
    await Chain.init(datadir, devnetGenesis());
    chain = Chain.open(datadir, { logger: pino({ level: "silent" }) });
    held = createServer();
    await new Promise<void>((r) => held!.listen(0, "127.0.0.1", r));
    const s = new DevP2PService(chain, options((held.address() as { port: number }).port), pino({ level: "silent" }));
    services.push(s);
    const e = await s.start().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(DevP2PStartError);
    expect((e as DevP2PStartError).code).toBe("P2P_EL_START_FAILED");
    expect((e as Error).message).toMatch(/^execution-layer network cannot start: .*EADDRINUSE/);
    expect(s.listening()).toBe(false);
  }, 30_000);

  it("serves admin_addPeer through the worker, and answers false once stopped", async () => {
    const s = new DevP2PService(chain!, options(0), pino({ level: "silent" }));
    services.push(s);
    await s.start();
    expect(s.listenInfo()?.ports.listener).toBeGreaterThan(0);
    expect(s.listening()).toBe(true);
    const bad = await s.addPeer("enode://nope").catch((x: unknown) => x);
    expect(bad).toBeInstanceOf(DevP2PStartError);
    await s.stop();
    expect(s.listening()).toBe(false);
    expect(await s.addPeer(`enode://${"ab".repeat(64)}@127.0.0.1:30303`)).toBe(false);
  }, 30_000);
});
