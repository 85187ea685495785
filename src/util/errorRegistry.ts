/**
 * The one registry that rebuilds errors after they crossed a thread boundary.
 *
 * A thread sends a thrown value as its plain {@link ErrorObject} (`errorToObject`: name, code,
 * message, metadata). The receiving thread rebuilds it here: an error class registered under the
 * object's `name` comes back as an instance of that class (so `instanceof` and `e.type.code`
 * work as if it had been thrown locally, and `src/rpc/errors.ts` maps it like any other), any
 * other coded error as a plain {@link BasaltError} keeping its code, and anything else as an
 * `Error` with the same message.
 *
 * Rebuilding does not call the class's constructor (subclasses take different arguments): the
 * instance is created from the class's prototype and given the sent fields.
 */
import { BasaltError, type ErrorObject } from "./errors.js";

/** An error class the registry can rebuild: any subclass of {@link BasaltError}. */
export type ErrorClass = abstract new (...args: never[]) => BasaltError;

const byName = new Map<string, ErrorClass>();

/**
 * Registers error classes by their class name, so errors of these classes sent by another thread
 * are rebuilt as instances of them. Registering the same class again is a no-op; two different
 * classes with one name are a programming error.
 */
export function registerErrors(...classes: ErrorClass[]): void {
  for (const c of classes) {
    const known = byName.get(c.name);
    if (known !== undefined && known !== c) throw new TypeError(`two error classes are named ${c.name}; error class names must be unique to cross threads`);
    byName.set(c.name, c);
  }
}

/** Rebuilds a thrown value from its plain form (see the module comment). */
export function errorFromObject(o: ErrorObject): Error {
  if (o.code === undefined) {
    const e = new Error(o.message);
    if (o.name !== "Error") e.name = o.name;
    return e;
  }
  const cls = byName.get(o.name);
  if (cls === undefined) return BasaltError.fromObject({ code: o.code, message: o.message, meta: o.meta });
  const meta = o.meta ?? {};
  const e = Object.create(cls.prototype as object) as BasaltError & { type?: unknown };
  Object.defineProperties(e, {
    name: { value: o.name, writable: true, configurable: true },
    message: { value: o.message, writable: true, configurable: true },
    code: { value: o.code, enumerable: true },
    meta: { value: meta, enumerable: true },
    // TypedError's code-narrowed view; harmless on other classes.
    type: { value: { ...meta, code: o.code }, enumerable: true },
    stack: { value: `${o.name}: ${o.message}\n    (rebuilt from another thread)`, writable: true, configurable: true },
  });
  return e;
}
