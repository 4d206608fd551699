/**
 * A minimal fediverse peer for tests: one Person actor served by its own
 * Fedify federation on a loopback port, which records what its inbox receives
 * and signs what it sends, like a Mastodon account would.
 */
import {
  createFederation,
  generateCryptoKeyPair,
  MemoryKvStore,
} from "@fedify/fedify";
import {
  Accept,
  Activity,
  type Actor,
  Endpoints,
  Follow,
  isActor,
  Person,
} from "@fedify/vocab";

export interface TestPeer {
  base: string;
  port: number;
  actorId: string;
  /** Raw JSON-LD of every activity received, in order. */
  received: Record<string, unknown>[];
  /** Signs and sends an activity to the actor at `recipientUrl`; throws when refused. */
  send(recipientUrl: string, activity: Activity): Promise<void>;
  /** Stops serving (its inbox goes down) but keeps its state. */
  stop(): Promise<void>;
  /** Serves again on the same port. */
  restart(): void;
}

/** Starts a peer with actor `/users/{name}` on a free (or the given) loopback port. */
export async function startPeer(name = "alice", port = 0): Promise<TestPeer> {
  const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
  const received: Record<string, unknown>[] = [];
  let base = "";
  const federation = createFederation<void>({
    kv: new MemoryKvStore(),
    allowPrivateAddress: true,
  });
  federation.setActorDispatcher(
    "/users/{identifier}",
    async (ctx, identifier) => {
      if (identifier !== name) return null;
      const [key] = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: `Test ${identifier}`,
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: key.cryptographicKey,
      });
    },
  ).setKeyPairsDispatcher((_ctx, identifier) =>
    identifier === name ? [rsa] : []
  );
  federation.setInboxListeners("/users/{identifier}/inbox", "/inbox")
    .on(Follow, async (ctx, follow) => {
      received.push(await follow.toJsonLd() as Record<string, unknown>);
      // Accepts every follower, as an open account does.
      const follower = await follow.getActor(ctx);
      if (!follower) return;
      await ctx.sendActivity(
        { identifier: name },
        follower,
        new Accept({
          id: new URL(
            `${ctx.getActorUri(name).href}#accept-${crypto.randomUUID()}`,
          ),
          actor: ctx.getActorUri(name),
          object: follow,
        }),
        { immediate: true },
      );
    })
    .on(Activity, async (_ctx, activity) => {
      received.push(await activity.toJsonLd() as Record<string, unknown>);
    });

  let server: Deno.HttpServer | null = null;
  const serve = (p: number) => {
    server = Deno.serve(
      { hostname: "127.0.0.1", port: p, onListen() {} },
      (request) => federation.fetch(request, { contextData: undefined }),
    );
    return (server.addr as Deno.NetAddr).port;
  };
  const boundPort = serve(port);
  base = `http://127.0.0.1:${boundPort}`;
  const actorId = `${base}/users/${name}`;
  return {
    base,
    port: boundPort,
    actorId,
    received,
    async send(recipientUrl, activity) {
      const ctx = federation.createContext(new URL(base));
      const recipient = await ctx.lookupObject(recipientUrl);
      if (!recipient || !isActor(recipient)) {
        throw new Error(`not an actor: ${recipientUrl}`);
      }
      await ctx.sendActivity(
        { identifier: name },
        recipient as Actor,
        activity,
        { immediate: true },
      );
    },
    async stop() {
      await server?.shutdown();
      server = null;
    },
    restart() {
      serve(boundPort);
    },
  };
}
