/**
 * Interactive transactions of the embedded engine (db/embedded.ts): they run
 * on the client's one connection, which they hold until they end.
 */
import type { InStatement, ResultSet, Transaction } from "@libsql/client/web";
import { LibsqlError } from "@libsql/client/web";
import { toBatchError } from "./embedded-errors.ts";

/**
 * What a transaction needs of its client (`EmbeddedClient`, which is not
 * imported here so that the two modules do not import each other).
 */
export interface TransactionConnection {
  readonly closed: boolean;
  /** Whether the connection is inside a transaction. */
  readonly inTransaction: boolean;
  /** Runs one statement on the connection, synchronously. */
  run(stmt: InStatement): ResultSet;
  /** Runs a script of several statements on the connection, synchronously. */
  exec(sql: string): void;
}

/** An interactive transaction of an `EmbeddedClient`. */
export class EmbeddedTransaction implements Transaction {
  #client: TransactionConnection | null;
  readonly #end: () => void;

  constructor(client: TransactionConnection, end: () => void) {
    this.#client = client;
    this.#end = end;
  }

  /** The client while the transaction is open. */
  #open(): TransactionConnection {
    const client = this.#client;
    if (!client || client.closed || !client.inTransaction) {
      throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
    }
    return client;
  }

  /** Gives the connection back (once). */
  #settle(): void {
    if (!this.#client) return;
    this.#client = null;
    this.#end();
  }

  get closed(): boolean {
    const client = this.#client;
    return !client || client.closed || !client.inTransaction;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    try {
      return Promise.resolve(this.#open().run(stmt));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs statements in order inside the transaction (not atomic by themselves, as in `@libsql/client`). */
  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    const results: ResultSet[] = [];
    for (let i = 0; i < stmts.length; i++) {
      try {
        results.push(this.#open().run(stmts[i]));
      } catch (error) {
        return Promise.reject(toBatchError(error, i));
      }
    }
    return Promise.resolve(results);
  }

  executeMultiple(sql: string): Promise<void> {
    try {
      return Promise.resolve(this.#open().exec(sql));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  commit(): Promise<void> {
    try {
      this.#open().run("COMMIT");
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.#settle();
    }
  }

  rollback(): Promise<void> {
    try {
      const client = this.#client;
      if (client && !client.closed && client.inTransaction) {
        client.run("ROLLBACK");
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    } finally {
      this.#settle();
    }
  }

  close(): void {
    try {
      const client = this.#client;
      if (client && !client.closed && client.inTransaction) {
        client.run("ROLLBACK");
      }
    } finally {
      this.#settle();
    }
  }
}
