/**
 * A P2P worker that cannot start (its TCP port taken, an unusable node key) fails the service's
 * start with the worker's P2PError, rebuilt as its class by the worker host's registry, and leaves
 * no worker running.
 */
import "../../../src/p2p/polyfills.js";
import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { P2PError, P2PErrorCode } from "../../../src/p2p/errors.js";
import type { P2PService } from "../../../src/p2p/service.js";
import { startP2P, testP2POptions } from "../../helpers/p2pServices.js";

describe("P2P start failure", () => {
  let server: Server | undefined;
  const started: P2PService[] = [];
  afterAll(async () => {
    await Promise.all(started.map((s) => s.stop()));
    await new Promise<void>((r) => (server === undefined ? r() : server.close(() => r())));
  });

  it("rejects with P2PError P2P_INVALID_CONFIG when the TCP port is in use", async () => {
    server = createServer();
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const e = await startP2P(testP2POptions(901n, { forkTimes: {} }, { tcpPort: port, noDiscovery: true })).then(
      (s) => {
        started.push(s);
        return undefined;
      },
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(P2PError);
    expect((e as P2PError).type.code).toBe(P2PErrorCode.INVALID_CONFIG);
    expect((e as Error).message).toMatch(/^consensus P2P cannot start: /);
  }, 30_000);

  it("rejects with P2PError when the node key is not a secp256k1 key", async () => {
    const e = await startP2P(testP2POptions(901n, { forkTimes: {} }, { nodeKey: new Uint8Array(32) })).then(
      (s) => {
        started.push(s);
        return undefined;
      },
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(P2PError);
    expect((e as P2PError).type.code).toBe(P2PErrorCode.INVALID_CONFIG);
  }, 30_000);
});
