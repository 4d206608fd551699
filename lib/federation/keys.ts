/** The instance actor's key pairs: generated once, kept in the settings table as JWK. */
import { eq } from "drizzle-orm";
import { exportJwk, generateCryptoKeyPair, importJwk } from "@fedify/fedify";
import type { Db } from "../../db/client.ts";
import { settings } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";

const KEYS_SETTING = "internal:federation_keys";

interface StoredKeys {
  rsa: { privateKey: JsonWebKey; publicKey: JsonWebKey };
  ed25519: { privateKey: JsonWebKey; publicKey: JsonWebKey };
}

/** The actor's RSA (HTTP and LD signatures) and Ed25519 (object proofs) key pairs. */
export interface ActorKeyPairs {
  rsa: CryptoKeyPair;
  ed25519: CryptoKeyPair;
}

async function importPair(
  stored: { privateKey: JsonWebKey; publicKey: JsonWebKey },
): Promise<CryptoKeyPair> {
  return {
    privateKey: await importJwk(stored.privateKey, "private"),
    publicKey: await importJwk(stored.publicKey, "public"),
  };
}

async function exportPair(pair: CryptoKeyPair) {
  return {
    privateKey: await exportJwk(pair.privateKey),
    publicKey: await exportJwk(pair.publicKey),
  };
}

/**
 * Fresh RSA-2048 and Ed25519 key pairs. Fedify's generator makes RSA-4096;
 * 2048 bits is what Mastodon uses and signs several times faster, which counts
 * when one event fans out to thousands of inboxes.
 */
export async function generateActorKeyPairs(): Promise<ActorKeyPairs> {
  const rsa = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  ) as CryptoKeyPair;
  return { rsa, ed25519: await generateCryptoKeyPair("Ed25519") };
}

/**
 * Loads the key pairs, generating and storing them on first use. RSA is
 * 2048 bits, what Mastodon uses: it signs several times faster than 4096.
 * Concurrent first calls converge on whichever pair was stored first.
 */
export async function loadOrCreateKeyPairs(
  db: Db,
  clock: Clock,
): Promise<ActorKeyPairs> {
  const read = async () => {
    const [row] = await db.select().from(settings).where(
      eq(settings.key, KEYS_SETTING),
    );
    return row ? row.value as StoredKeys : null;
  };
  let stored = await read();
  if (!stored) {
    const { rsa, ed25519 } = await generateActorKeyPairs();
    const value: StoredKeys = {
      rsa: await exportPair(rsa),
      ed25519: await exportPair(ed25519),
    };
    await db.insert(settings).values({
      key: KEYS_SETTING,
      value,
      updatedAt: clock.now(),
    }).onConflictDoNothing();
    stored = (await read())!;
  }
  return {
    rsa: await importPair(stored.rsa),
    ed25519: await importPair(stored.ed25519),
  };
}
