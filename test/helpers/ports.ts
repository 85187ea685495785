/**
 * Free TCP port discovery for tests that start real servers.
 *
 * A port is "free" when the OS hands it out for a listener bound to port 0. All
 * requested ports are reserved simultaneously before any is released, so one call
 * never returns the same port twice. (Another process can still grab a port between
 * the release and the caller's own bind; that race is accepted, as everywhere.)
 */
import net from "node:net";

/** Loopback address the helpers bind and connect to. */
export const LOCALHOST = "127.0.0.1";

function listenOnEphemeral(host: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ port: 0, host, exclusive: true }, () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

function closeServer(server: net.Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Returns `count` distinct free TCP ports on `host` (default 127.0.0.1).
 * @param count number of ports wanted (≥ 1)
 * @param host interface to probe
 */
export async function getFreePorts(count: number, host: string = LOCALHOST): Promise<number[]> {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`getFreePorts: bad count ${count}`);
  const servers: net.Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnEphemeral(host));
    return servers.map((s) => {
      const addr = s.address();
      if (addr === null || typeof addr === "string") throw new Error("getFreePorts: unexpected server address");
      return addr.port;
    });
  } finally {
    await Promise.all(servers.map(closeServer));
  }
}

/**
 * Returns one free TCP port on `host` (default 127.0.0.1).
 * @param host interface to probe
 */
export async function getFreePort(host: string = LOCALHOST): Promise<number> {
  const [port] = await getFreePorts(1, host);
  return port as number;
}
