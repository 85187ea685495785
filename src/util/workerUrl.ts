/**
 * The compiled entry of a worker thread (`workers/<name>.ts` → `<build>/workers/<name>.js`).
 * From the build (dist/src/util) it is the sibling `dist/workers`; code run from the TypeScript
 * sources (the test runner) uses the compiled `dist/workers` too, since Node runs workers as
 * JavaScript.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** URL of the compiled worker entry `name` (without extension). */
export function workerUrl(name: string): URL {
  const sibling = new URL(`../../workers/${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling;
  return new URL(`../../dist/workers/${name}.js`, import.meta.url);
}
