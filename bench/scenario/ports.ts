/** Free loopback TCP ports for the scenario's servers (basalt, anvil, the bare server). */
import net from "node:net";

/** The address every server of the scenario listens on and the load generator connects to. */
export const LOOPBACK = "127.0.0.1";

/**
 * `count` distinct free TCP ports on 127.0.0.1: all are reserved (bound to port 0) at once, then
 * released, so one call never returns a port twice. Another process may still take one between
 * the release and the server's own bind (accepted, as in every such helper).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      servers.push(
        await new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.unref();
          s.once("error", reject);
          s.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => resolve(s));
        }),
      );
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
