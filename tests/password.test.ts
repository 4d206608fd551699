import assert from "node:assert/strict";
import { createNativeHasher, createWasmHasher } from "../lib/auth/password.ts";

Deno.test("native and WASM argon2id verify each other's hashes", async () => {
  const native = await createNativeHasher();
  const wasm = await createWasmHasher();
  const fromNative = await native.hash("pässwörd 🔑");
  const fromWasm = await wasm.hash("pässwörd 🔑");
  for (const h of [fromNative, fromWasm]) {
    assert.match(h, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  }
  assert.equal(await native.verify(fromWasm, "pässwörd 🔑"), true);
  assert.equal(await wasm.verify(fromNative, "pässwörd 🔑"), true);
  assert.equal(await native.verify(fromWasm, "passwörd 🔑"), false);
  assert.equal(await wasm.verify(fromNative, "wrong"), false);
  // Every byte counts: a password differing only in its last character fails.
  const wasmAccents = await wasm.hash("ééééé");
  assert.equal(await wasm.verify(wasmAccents, "ééééx"), false);
  assert.equal(await native.verify(wasmAccents, "ééééé"), true);
  // Unreadable hashes are a plain "no", not an exception.
  assert.equal(await native.verify("not a hash", "x"), false);
  assert.equal(await wasm.verify("not a hash", "x"), false);
  // Salted: the same password never hashes the same twice.
  assert.notEqual(await native.hash("same"), await native.hash("same"));
});
