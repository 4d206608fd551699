/** `deno task user ...`: manage accounts from the shell. */
import { parseArgs } from "node:util";
import type { Db } from "../../db/client.ts";
import { USER_ROLES, type UserRole } from "../../db/schema.ts";
import type { PasswordHasher } from "../auth/password.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import {
  createUser,
  findUserByEmail,
  listUsers,
  updateUser,
} from "../users.ts";

/** What the command needs from the terminal. */
export interface CliIO {
  /** A password: the first line of stdin when piped, a hidden prompt on a terminal. */
  readPassword(prompt: string): Promise<string>;
  out(line: string): void;
  err(line: string): void;
}

export const USER_CLI_USAGE = `Usage:
  user add --email E [--role admin|editor|user] [--description D]
  user list
  user set-role --email E --role admin|editor|user
  user set-active --email E --active true|false
  user reset-password --email E
The password is read from standard input when it is not a terminal, otherwise prompted for.`;

function parseRole(value: string | undefined): UserRole {
  if (value === undefined) return "user";
  if (!(USER_ROLES as readonly string[]).includes(value)) {
    throw new CliError(`--role must be one of ${USER_ROLES.join(", ")}`);
  }
  return value as UserRole;
}

class CliError extends Error {}

async function readNewPassword(io: CliIO): Promise<string> {
  const password = await io.readPassword("Password: ");
  if (password.length < 8) {
    throw new CliError("the password must be at least 8 characters");
  }
  return password;
}

/** Runs one user command; returns the process exit code. */
export async function runUserCommand(
  args: string[],
  deps: { db: Db; hasher: PasswordHasher; clock: Clock; io: CliIO },
): Promise<number> {
  const { db, hasher, clock, io } = deps;
  const [command, ...rest] = args;
  try {
    const { values } = parseArgs({
      args: rest,
      options: {
        email: { type: "string" },
        role: { type: "string" },
        description: { type: "string" },
        active: { type: "string" },
      },
      strict: true,
    });
    const needEmail = (): string => {
      if (!values.email) throw new CliError("--email is required");
      return values.email;
    };
    const existing = async () => {
      const user = await findUserByEmail(db, needEmail());
      if (!user) throw new CliError(`no user with e-mail ${values.email}`);
      return user;
    };
    switch (command) {
      case "add": {
        const email = needEmail().trim();
        if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
          throw new CliError("--email is not an e-mail address");
        }
        const role = parseRole(values.role);
        const password = await readNewPassword(io);
        const user = await createUser(db, hasher, clock, {
          email,
          password,
          role,
          description: values.description,
        });
        io.out(
          `created user ${user.id} <${user.email}> with role ${user.role}`,
        );
        return 0;
      }
      case "list": {
        for (let page = 1;; page++) {
          const { data, totalPages } = await listUsers(db, page, 100);
          for (const u of data) {
            io.out(
              `${u.id}\t${u.email}\t${u.role}\t${
                u.is_active ? "active" : "inactive"
              }`,
            );
          }
          if (page >= totalPages) break;
        }
        return 0;
      }
      case "set-role": {
        const user = await existing();
        if (!values.role) throw new CliError("--role is required");
        const updated = await updateUser(db, hasher, clock, user.id, {
          role: parseRole(values.role),
        });
        io.out(`user ${updated.id} <${updated.email}> is now ${updated.role}`);
        return 0;
      }
      case "set-active": {
        const user = await existing();
        if (values.active !== "true" && values.active !== "false") {
          throw new CliError("--active must be true or false");
        }
        const updated = await updateUser(db, hasher, clock, user.id, {
          is_active: values.active === "true",
        });
        io.out(
          `user ${updated.id} <${updated.email}> is ${
            updated.is_active ? "active" : "inactive"
          }`,
        );
        return 0;
      }
      case "reset-password": {
        const user = await existing();
        const password = await readNewPassword(io);
        await updateUser(db, hasher, clock, user.id, { password });
        io.out(`password of user ${user.id} <${user.email}> changed`);
        return 0;
      }
      default:
        io.err(USER_CLI_USAGE);
        return 2;
    }
  } catch (err) {
    if (err instanceof CliError || err instanceof ApiError) {
      io.err(`error: ${err.message}`);
      return 1;
    }
    if (err instanceof TypeError && "code" in err) {
      // parseArgs: unknown or malformed option
      io.err(`error: ${err.message}\n${USER_CLI_USAGE}`);
      return 2;
    }
    throw err;
  }
}
