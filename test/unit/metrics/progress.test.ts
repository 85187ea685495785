/** ProgressMeter (pace over the last interval, ETA), formatDuration and countRlpItems, on an injected clock. */
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { countRlpItems, formatDuration, ProgressMeter } from "../../../src/util/progress.js";

describe("ProgressMeter", () => {
  it("reports blocks/s since the previous sample and the time left at that pace", () => {
    let t = 0;
    const m = new ProgressMeter(100, () => t);
    expect(m.due(8000)).toBe(false);
    t = 8000;
    expect(m.due(8000)).toBe(true);
    expect(m.sample(180, 400)).toEqual({ blocksPerSecond: 10, etaSeconds: 40, eta: "40s" });
    expect(m.due(8000)).toBe(false);
    t = 12_000;
    // 20 blocks in 4 s: the pace is the last interval's, not the average since the start.
    expect(m.sample(200, 3000)).toEqual({ blocksPerSecond: 5, etaSeconds: 600, eta: "10m00s" });
  });

  it("gives no ETA without a total or without progress", () => {
    let t = 0;
    const m = new ProgressMeter(0, () => t);
    t = 1000;
    expect(m.sample(5)).toEqual({ blocksPerSecond: 5 });
    t = 2000;
    expect(m.sample(5, 10)).toEqual({ blocksPerSecond: 0 });
  });
});

describe("formatDuration", () => {
  it("formats seconds, minutes, hours and days", () => {
    expect(formatDuration(0)).toBe("0s");
    expect(formatDuration(59)).toBe("59s");
    expect(formatDuration(245)).toBe("4m05s");
    expect(formatDuration(3720)).toBe("1h02m");
    expect(formatDuration(3 * 86_400 + 4 * 3600 + 59)).toBe("3d04h");
  });
});

describe("countRlpItems", () => {
  it("counts concatenated RLP lists of any length prefix and stops at a truncated item", () => {
    const small = RLP.encode([new Uint8Array(3)]);
    const big = RLP.encode([new Uint8Array(300), [new Uint8Array(70_000)]]);
    const file = new Uint8Array([...small, ...big, ...small]);
    expect(countRlpItems(file)).toBe(3);
    expect(countRlpItems(file.subarray(0, file.length - 1))).toBe(2);
    expect(countRlpItems(new Uint8Array())).toBe(0);
  });
});
