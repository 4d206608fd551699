/** The WASM hasher as the Worker builds it: from a compiled module, reading native hashes. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { wasmHasher } from "../lib/auth/hasher.ts";
import {
  createNativeHasher,
  createPasswordHasher,
} from "../lib/auth/password.ts";

Deno.test("the WASM hasher from a compiled WebAssembly.Module (as on Workers) reads and writes native-compatible hashes", async () => {
  const bytes = await readFile(
    fileURLToPath(import.meta.resolve("@phi-ag/argon2/argon2.wasm")),
  );
  const module = await WebAssembly.compile(new Uint8Array(bytes));
  const wasm = await wasmHasher(module);
  assert.equal(wasm.name, "wasm");
  const native = await createNativeHasher();
  const fromWasm = await wasm.hash("pässwörd 🔑");
  assert.equal(await native.verify(fromWasm, "pässwörd 🔑"), true);
  assert.equal(
    await wasm.verify(await native.hash("pässwörd 🔑"), "pässwörd 🔑"),
    true,
  );
  assert.equal(await wasm.verify(fromWasm, "pässwörd"), false);
});

Deno.test("createPasswordHasher: native where the addon loads, wasm when asked", async () => {
  assert.equal((await createPasswordHasher("native")).name, "native");
  assert.equal((await createPasswordHasher("wasm")).name, "wasm");
});
