/**
 * The engines the EEST state tests run, in order. The reference comes first: the other
 * engines must pass every case it passes (run.ts).
 *
 * To add an engine: import its {@link StateTestEngine} and append it to {@link ENGINES}, e.g.
 * `import { fastEngine } from "./fastEngine.js";` and `[referenceEngine, fastEngine]`.
 */
import type { StateTestEngine } from "./engine.js";
import { fastEngine } from "./fastEngine.js";
import { referenceEngine } from "./referenceEngine.js";

/** Name of the reference engine (@ethereumjs/vm through basalt's state). */
export const REFERENCE_ENGINE = referenceEngine.name;

/** Every engine under test, the reference first. */
export const ENGINES: readonly StateTestEngine[] = [referenceEngine, fastEngine];

const names = ENGINES.map((e) => e.name);
if (names[0] !== REFERENCE_ENGINE) throw new Error("the reference engine must come first in ENGINES");
if (new Set(names).size !== names.length) throw new Error(`duplicate engine names in ENGINES: ${names.join(", ")}`);
