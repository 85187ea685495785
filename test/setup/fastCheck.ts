/**
 * Replaying a failed property test. fast-check prints the failing run's seed ("Property failed
 * after N tests { seed: -1853214155, path: "12:3:0", endOnFailure: true }"); setting `FC_SEED`
 * replays the same runs — and the same failure and shrinking — for every property of the selected
 * tests (test/README.md):
 *
 *   FC_SEED=-1853214155 npx vitest run test/unit/chain/sender.test.ts -t "signing hash"
 *
 * (fast-check takes the `path` shortcut only per property: add `{ seed, path }` to that
 * `fc.assert` while debugging.) `FC_NUM_RUNS` overrides the run count of properties that do not
 * set their own. Properties with a fixed `seed` in their parameters keep it (they are
 * deterministic already).
 */
import fc from "fast-check";

const seed = process.env.FC_SEED;
const numRuns = process.env.FC_NUM_RUNS;
const config: fc.GlobalParameters = {};
if (seed !== undefined && seed !== "") config.seed = Number(seed);
if (numRuns !== undefined && numRuns !== "") config.numRuns = Number(numRuns);
if (Object.keys(config).length > 0) fc.configureGlobal({ ...fc.readConfigureGlobal(), ...config });
