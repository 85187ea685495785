/**
 * `--http.api` / `--ws.api`: which JSON-RPC namespaces a transport serves, as geth's and reth's
 * flags of the same names. A method's namespace is the part of its name before the first `_`
 * (`debug_traceTransaction` → `debug`). Without the option every namespace is served (and
 * `--public` still turns the operator namespaces off, rpc/publicPolicy.ts).
 */
import type { MethodTable } from "./types.js";
import { TypedError } from "../util/errors.js";

/** Stable code of {@link UnknownNamespaceError}. */
const UnknownNamespaceErrorCode = { UNKNOWN_NAMESPACE: "RPC_UNKNOWN_NAMESPACE" } as const;
/** A {@link UnknownNamespaceError}'s code with its metadata. */
type UnknownNamespaceErrorType = { code: typeof UnknownNamespaceErrorCode.UNKNOWN_NAMESPACE; option: string; namespace: string; known: string[] };

/** A namespace list naming something no method belongs to. */
export class UnknownNamespaceError extends TypedError<UnknownNamespaceErrorType> {
  constructor(option: string, namespace: string, known: string[]) {
    super({ code: UnknownNamespaceErrorCode.UNKNOWN_NAMESPACE, option, namespace, known }, `--${option}: unknown namespace "${namespace}"; expected some of ${known.join(", ")}`);
  }
}

/** The namespace of a method name. */
export function namespaceOf(method: string): string {
  const i = method.indexOf("_");
  return i < 0 ? method : method.slice(0, i);
}

/**
 * The methods of `table` whose namespace is listed in `api` (comma-separated, case-insensitive);
 * all of them when `api` is undefined.
 * @throws UnknownNamespaceError for a namespace no method has (a typo would otherwise turn a whole API off silently).
 */
export function selectNamespaces(table: MethodTable, api: string | undefined, option: string): MethodTable {
  if (api === undefined) return table;
  const known = [...new Set(Object.keys(table).map(namespaceOf))].sort();
  const wanted = new Set(
    api
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter((s) => s.length > 0),
  );
  for (const ns of wanted) if (!known.includes(ns)) throw new UnknownNamespaceError(option, ns, known);
  return Object.fromEntries(Object.entries(table).filter(([m]) => wanted.has(namespaceOf(m))));
}
