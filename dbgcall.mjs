const { buildMicroFixture } = await import("/work/main/dist/bench/micro/fixture.js");
const { CallExecutor } = await import("/work/main/dist/src/execution/callExecutor.js");
const { transferCalldata } = await import("/work/main/dist/bench/workload/contracts.js");
const fx = await buildMicroFixture({ txs: 50 });
const { probe } = fx.workload;
const engine = process.env.BASALT_EVM ?? "fast";
const exec = new CallExecutor(fx.chain, engine);
const head = fx.chain.head.header;
const recips = fx.workload.senders.slice(0, 16);
const N = +(process.env.N ?? 5000);
const mode = process.env.MODE ?? "call";
const run = (i) => {
  const args = { from: probe.from, to: probe.token, data: transferCalldata(recips[i % recips.length], BigInt(i + 1)) };
  return mode === "call" ? exec.call(head, args) : exec.estimateGas(head, args);
};
for (let i = 0; i < 500; i++) await run(i);
let prof;
if (process.env.PROF) {
  const inspector = await import("node:inspector"); const sess = new inspector.Session(); sess.connect();
  prof = (m, p) => new Promise((res, rej) => sess.post(m, p ?? {}, (e, r) => e ? rej(e) : res(r)));
  await prof("Profiler.enable"); await prof("Profiler.setSamplingInterval", { interval: 100 }); await prof("Profiler.start");
}
const c0 = process.cpuUsage(); const t0 = performance.now();
for (let i = 0; i < N; i++) await run(i);
const t = performance.now() - t0; const cpu = process.cpuUsage(c0);
console.log(`${engine} ${mode}: ${(t * 1000 / N).toFixed(1)} µs/op wall, ${((cpu.user + cpu.system) / N).toFixed(1)} µs/op cpu`);
if (prof) { const { profile } = await prof("Profiler.stop"); (await import("node:fs")).writeFileSync("/tmp/prof/call.cpuprofile", JSON.stringify(profile)); }
process.exit(0);
