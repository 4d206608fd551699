/**
 * Password hashing with argon2id behind one interface. The native implementation
 * (@node-rs/argon2) is the default; the WASM one (@phi-ag/argon2) runs where
 * native addons do not (Cloudflare Workers, Deno Deploy). Both write and read the
 * same PHC strings, so a database can move between them.
 */

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

/**
 * argon2id in WebAssembly. Pass an instantiated module on runtimes that bundle
 * the .wasm file (Workers); otherwise it is read from the package.
 */
export async function createWasmHasher(
  instance?: WebAssembly.Instance,
): Promise<PasswordHasher> {
  const { default: Argon2, Argon2Type, Argon2Version } = await import(
    "@phi-ag/argon2"
  );
  let argon2: InstanceType<typeof Argon2>;
  if (instance) {
    argon2 = new Argon2(instance);
  } else {
    const { default: initialize } = await import("@phi-ag/argon2/node");
    argon2 = await initialize();
  }
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

/** The hasher named by configuration. */
export function createPasswordHasher(
  kind: "native" | "wasm",
): Promise<PasswordHasher> {
  return kind === "wasm" ? createWasmHasher() : createNativeHasher();
}
