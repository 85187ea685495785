/**
 * Language features newer than Node 20 that the libp2p stack calls at run time.
 *
 * `it-queue` (under libp2p's peer store) uses `Promise.withResolvers` (ES2024, Node 22+). Node
 * 20 is basalt's floor (package.json engines), so the P2P thread installs the standard
 * behaviour before it starts libp2p. Importing this module is idempotent and changes nothing
 * where the runtime already has the feature.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const P = Promise as unknown as { withResolvers?: <T>() => Resolvers<T> };
if (typeof P.withResolvers !== "function") {
  P.withResolvers = <T>(): Resolvers<T> => {
    let resolve!: Resolvers<T>["resolve"];
    let reject!: Resolvers<T>["reject"];
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export {};
