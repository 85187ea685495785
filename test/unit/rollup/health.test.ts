/** `GET /health?max_lag=N` on the rollup port: the sync check (now − head timestamp) as an HTTP status. */
import { describe, expect, it } from "vitest";
import type { Chain } from "../../../src/blockchain/chain.js";
import { healthAnswer } from "../../../src/rollup/health.js";
import { DEFAULT_HEALTH_MAX_LAG_S } from "../../../src/rollup/constants.js";

const chainAt = (number: bigint, timestamp: bigint): Chain => ({ head: { header: { number, timestamp } } }) as unknown as Chain;

describe("GET /health", () => {
  const chain = chainAt(42n, 1_000n);

  it("is 200 while the head is at most max_lag seconds old, 503 beyond", () => {
    const ok = healthAnswer(chain, "/health", "max_lag=10", 1_010)!;
    expect(ok.status).toBe("200 OK");
    expect(JSON.parse(ok.body)).toEqual({ healthy: true, lag: 10, max_lag: 10, unsafe_l2: { number: 42, timestamp: 1000 } });
    const stale = healthAnswer(chain, "/health", "max_lag=10", 1_011)!;
    expect(stale.status).toBe("503 Service Unavailable");
    expect(JSON.parse(stale.body)).toMatchObject({ healthy: false, lag: 11 });
  });

  it("defaults max_lag and rejects a malformed one", () => {
    expect(JSON.parse(healthAnswer(chain, "/health", "", 1_000 + DEFAULT_HEALTH_MAX_LAG_S)!.body).healthy).toBe(true);
    const bad = healthAnswer(chain, "/health", "max_lag=soon", 1_000)!;
    expect(bad.status).toBe("400 Bad Request");
    expect(JSON.parse(bad.body).error).toMatch(/max_lag must be a number/);
  });

  it("answers only its own path", () => {
    expect(healthAnswer(chain, "/", "", 1_000)).toBeUndefined();
  });
});
