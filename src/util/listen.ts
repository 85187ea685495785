/**
 * Binding a uWebSockets.js app to one address, exclusively: the HTTP, WebSocket and flashblocks
 * servers all listen this way, so two nodes (or two servers) never share a port silently.
 */
import uws from "uWebSockets.js";
import type { TemplatedApp, us_listen_socket } from "uWebSockets.js";

/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT: fail instead of sharing a port via SO_REUSEPORT. */
const LISTEN_EXCLUSIVE_PORT = 1;

/** The 4-argument listen overload the native module has but the bundled typings omit. */
type ListenWithOptions = (host: string, port: number, options: number, cb: (listenSocket: us_listen_socket | false) => void) => TemplatedApp;

/**
 * Binds `app` to `host:port` (0 = any free port); resolves with the listen socket and the port
 * actually bound, or rejects with `failure()` when the address is taken or invalid.
 */
export function listenExclusive(app: TemplatedApp, host: string, port: number, failure: () => Error): Promise<{ socket: us_listen_socket; port: number }> {
  return new Promise((resolve, reject) => {
    const listen = app.listen as unknown as ListenWithOptions;
    listen.call(app, host, port, LISTEN_EXCLUSIVE_PORT, (socket) => {
      if (socket === false) reject(failure());
      else resolve({ socket, port: uws.us_socket_local_port(socket) });
    });
  });
}
