/**
 * Password hashing with argon2id behind one interface (lib/auth/hasher.ts).
 * The native implementation (@node-rs/argon2) is the default; the WASM one
 * (@phi-ag/argon2) runs where native addons do not (Cloudflare Workers, Deno
 * Deploy, `--deny-ffi`). Both write and read the same PHC strings, so a
 * database can move between them. This module loads them on Deno (the addon,
 * or the `.wasm` read from the package); an edge build uses `hasher.ts` alone.
 */
import type { Logger } from "../log.ts";
import {
  ARGON2_PARAMS,
  hasherOver,
  type PasswordHasher,
  wasmHasher,
} from "./hasher.ts";

export { ARGON2_PARAMS, type PasswordHasher } from "./hasher.ts";

/** argon2id through the native @node-rs/argon2 addon (needs --allow-ffi on Deno). */
export async function createNativeHasher(): Promise<PasswordHasher> {
  const argon2 = await import("@node-rs/argon2");
  return {
    name: "native",
    hash: (password) =>
      argon2.hash(password, {
        ...ARGON2_PARAMS,
        outputLen: ARGON2_PARAMS.hashLength,
        algorithm: 2, // Algorithm.Argon2id (a const enum, not importable at run time)
      }),
    verify: async (hash, password) => {
      try {
        return await argon2.verify(hash, password);
      } catch {
        return false;
      }
    },
  };
}

/**
 * argon2id in WebAssembly. Pass the module (compiled or instantiated) on
 * runtimes that bundle the .wasm file (Workers); otherwise it is read from
 * the package.
 */
export async function createWasmHasher(
  wasm?: WebAssembly.Module | WebAssembly.Instance,
): Promise<PasswordHasher> {
  if (wasm) return await wasmHasher(wasm);
  // Reads the package's argon2.wasm from disk.
  const { default: initialize } = await import("@phi-ag/argon2/node");
  return hasherOver(await initialize());
}

/**
 * The hasher named by configuration. "native" falls back to the WASM one when
 * the addon cannot load (no `--allow-ffi`, as on Deno Deploy, or no binary
 * for the platform), saying so on `log`.
 */
export async function createPasswordHasher(
  kind: "native" | "wasm",
  log?: Logger,
): Promise<PasswordHasher> {
  if (kind === "wasm") return await createWasmHasher();
  try {
    return await createNativeHasher();
  } catch (error) {
    log?.warning(
      "the native argon2 addon could not load; using the WASM hasher",
      { error: error instanceof Error ? error.message : String(error) },
    );
    return await createWasmHasher();
  }
}
