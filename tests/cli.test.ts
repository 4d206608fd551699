import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { type CliIO, runUserCommand } from "../lib/cli/users.ts";
import { findUserByEmail } from "../lib/users.ts";
import {
  call,
  countRows,
  createTestApp,
  expectError,
  hasher,
  loginToken,
  PERMS,
  ROOT,
} from "./helpers.ts";

function fakeIO(passwords: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    readPassword: () => Promise.resolve(passwords.shift() ?? ""),
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  };
  return { io, out, err };
}

Deno.test("CLI: add, list, set-role, set-active, reset-password", async () => {
  const ctx = await createTestApp();
  const deps = { db: ctx.database.db, hasher, clock: ctx.clock };
  const add = fakeIO(["first-password"]);
  assert.equal(
    await runUserCommand([
      "add",
      "--email",
      "Ed@Example.org",
      "--role",
      "editor",
    ], { ...deps, io: add.io }),
    0,
  );
  assert.match(
    add.out[0],
    /created user \d+ <ed@example.org> with role editor/,
  );

  const list = fakeIO();
  assert.equal(await runUserCommand(["list"], { ...deps, io: list.io }), 0);
  assert.match(list.out.join("\n"), /ed@example.org\teditor\tactive/);

  assert.equal(
    await runUserCommand([
      "set-role",
      "--email",
      "ed@example.org",
      "--role",
      "admin",
    ], { ...deps, ...fakeIO() }),
    0,
  );
  assert.equal(
    (await findUserByEmail(ctx.database.db, "ed@example.org"))?.role,
    "admin",
  );

  const reset = fakeIO(["second-password"]);
  assert.equal(
    await runUserCommand(["reset-password", "--email", "ed@example.org"], {
      ...deps,
      io: reset.io,
    }),
    0,
  );
  await loginToken(ctx, "ed@example.org", "second-password");

  // The only admin cannot be deactivated.
  const deactivate = fakeIO();
  assert.equal(
    await runUserCommand([
      "set-active",
      "--email",
      "ed@example.org",
      "--active",
      "false",
    ], { ...deps, io: deactivate.io }),
    1,
  );
  assert.match(deactivate.err[0], /last active admin/);
  ctx.close();
});

Deno.test("CLI: bad input exits non-zero and writes nothing", async () => {
  const ctx = await createTestApp();
  const deps = { db: ctx.database.db, hasher, clock: ctx.clock };
  const cases: [string[], string[], number][] = [
    [
      ["add", "--email", "x@example.org", "--role", "owner"],
      ["long-enough"],
      1,
    ],
    [["add", "--email", "x@example.org"], ["short"], 1],
    [["add", "--email", "not-an-email"], ["long-enough"], 1],
    [["add"], ["long-enough"], 1],
    [["add", "--bogus"], [], 2],
    [["frobnicate"], [], 2],
  ];
  for (const [args, passwords, code] of cases) {
    const { io, err } = fakeIO(passwords);
    assert.equal(
      await runUserCommand(args, { ...deps, io }),
      code,
      args.join(" "),
    );
    assert.ok(err.length > 0);
  }
  assert.equal(await countRows(ctx, "users"), 0);
  ctx.close();
});

Deno.test("CLI subprocess: printf 'secret-pw' | user add creates an admin who can log in", async () => {
  const dir = await Deno.makeTempDir();
  const url = `file:${join(dir, "quando.db")}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...PERMS,
      "main.ts",
      "user",
      "add",
      "--email",
      "admin@example.org",
      "--role",
      "admin",
    ],
    cwd: ROOT,
    env: { DATABASE_URL: url, RUST_BACKTRACE: "0" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("secret-pw\n"));
  await writer.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(stdout, /created user 1 <admin@example.org> with role admin/);
  assert.ok(!stdout.includes("secret-pw"), "the password was echoed");

  const database = await openDatabase(url);
  const ctx = await createTestApp({ database });
  const token = await loginToken(ctx, "admin@example.org", "secret-pw");
  const me = await call(ctx, "GET", "/api/users/me", { token });
  assert.equal((await me.json()).role, "admin");
  await expectError(
    await call(ctx, "POST", "/api/login/token", {
      json: { email: "admin@example.org", password: "secret-px" },
    }),
    401,
  );
  database.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("ADMIN_EMAIL and ADMIN_PASSWORD create the first admin once, and never a second", async () => {
  const env = {
    ADMIN_EMAIL: "boot@example.org",
    ADMIN_PASSWORD: "bootstrap-pw",
  };
  const ctx = await createTestApp({ env });
  const token = await loginToken(ctx, "boot@example.org", "bootstrap-pw");
  assert.equal(
    (await (await call(ctx, "GET", "/api/users/me", { token })).json()).role,
    "admin",
  );
  // A restart with other credentials does not add an admin while one exists.
  await createTestApp({
    database: ctx.database,
    env: { ADMIN_EMAIL: "other@example.org", ADMIN_PASSWORD: "other-pw-1" },
  });
  assert.equal(await countRows(ctx, "users"), 1);
  ctx.close();
});
