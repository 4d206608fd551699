/**
 * The password hasher interface and its WebAssembly argon2id (@phi-ag/argon2),
 * safe for every runtime: no native addon, no file access. The module is
 * handed in compiled (Cloudflare Workers imports the `.wasm` as a module and
 * refuses to compile WebAssembly from bytes) or instantiated.
 * `lib/auth/password.ts` adds the native hasher and the loaders for Deno.
 */
import Argon2, { Argon2Type, Argon2Version } from "@phi-ag/argon2";

/** Hashes and verifies passwords. */
export interface PasswordHasher {
  readonly name: string;
  hash(password: string): Promise<string>;
  /** False for a wrong password or an unreadable hash; never throws. */
  verify(hash: string, password: string): Promise<boolean>;
}

/** OWASP's recommended argon2id parameters (m=19 MiB, t=2, p=1). */
export const ARGON2_PARAMS = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  hashLength: 32,
} as const;

/**
 * @phi-ag/argon2 0.5.28 hands `password.length` (UTF-16 code units) to argon2 as
 * the byte length, which silently truncates non-ASCII passwords. It builds the
 * bytes with `value + "\0"`, so an object whose string value is the password
 * and whose `length` is its UTF-8 byte count gives argon2 the right input.
 */
function withUtf8Length(password: string): string {
  const bytes = new TextEncoder().encode(password).length;
  if (bytes === password.length) return password;
  return {
    length: bytes,
    toString: () => password,
    valueOf: () => password,
  } as unknown as string; // see above: deliberately not a real string
}

/** argon2id in WebAssembly, from the package's `argon2.wasm` compiled or instantiated. */
export async function wasmHasher(
  wasm: WebAssembly.Module | WebAssembly.Instance,
): Promise<PasswordHasher> {
  const instance = wasm instanceof WebAssembly.Module
    ? await WebAssembly.instantiate(wasm)
    : wasm;
  return hasherOver(new Argon2(instance));
}

/** The hasher over an initialised @phi-ag/argon2 object. */
export function hasherOver(argon2: Argon2): PasswordHasher {
  return {
    name: "wasm",
    hash: (password) =>
      Promise.resolve(
        argon2.hash(withUtf8Length(password), {
          ...ARGON2_PARAMS,
          type: Argon2Type.Argon2id,
          version: Argon2Version.Version13,
        }).encoded,
      ),
    verify: (hash, password) => {
      try {
        return Promise.resolve(
          argon2.tryVerify(hash, withUtf8Length(password)).success,
        );
      } catch {
        return Promise.resolve(false);
      }
    },
  };
}
