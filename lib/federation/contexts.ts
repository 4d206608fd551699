/**
 * The JSON-LD contexts Quando knows, served from memory: Fedify's preloaded
 * set, plus the spellings and contexts real peers use that it lacks. A context
 * URL outside this set is never fetched (an inbox post naming one is a 400),
 * so no remote party can make the server download or expand a document of its
 * choosing.
 */
import { preloadedContexts } from "@fedify/vocab-runtime";

const AS = "https://www.w3.org/ns/activitystreams";
const SECURITY_V1 = "https://w3id.org/security/v1";

/**
 * The LitePub context (Pleroma, Akkoma, Mobilizon): ActivityStreams and the
 * security vocabulary plus the terms those servers add. Written from the
 * terms they send, so that their activities expand without a fetch.
 */
const LITEPUB_CONTEXT = {
  "@context": [
    AS,
    SECURITY_V1,
    {
      litepub: "http://litepub.social/ns#",
      ostatus: "http://ostatus.org#",
      schema: "http://schema.org#",
      toot: "http://joinmastodon.org/ns#",
      Emoji: "toot:Emoji",
      Hashtag: "as:Hashtag",
      PropertyValue: "schema:PropertyValue",
      value: "schema:value",
      atomUri: "ostatus:atomUri",
      conversation: { "@id": "ostatus:conversation", "@type": "@id" },
      discoverable: "toot:discoverable",
      manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
      sensitive: "as:sensitive",
      capabilities: "litepub:capabilities",
      invisible: "litepub:invisible",
      directMessage: "litepub:directMessage",
      listMessage: { "@id": "litepub:listMessage", "@type": "@id" },
      oauthRegistrationEndpoint: {
        "@id": "litepub:oauthRegistrationEndpoint",
        "@type": "@id",
      },
      EmojiReact: "litepub:EmojiReact",
      ChatMessage: "litepub:ChatMessage",
      alsoKnownAs: { "@id": "as:alsoKnownAs", "@type": "@id" },
    },
  ],
};

/** Other spellings of contexts Fedify preloads under one URL only. */
const ALIASES: Record<string, string> = {
  "http://www.w3.org/ns/activitystreams": AS,
  "https://www.w3.org/ns/activitystreams.jsonld": AS,
  "http://www.w3.org/ns/activitystreams.jsonld": AS,
  "http://w3id.org/security/v1": SECURITY_V1,
  "https://w3id.org/security/v1.jsonld": SECURITY_V1,
  "https://schema.org/": "http://schema.org/",
  "https://schema.org": "http://schema.org/",
  "http://schema.org": "http://schema.org/",
};

const EXTRA: Record<string, unknown> = {
  "https://litepub.social/litepub/context.jsonld": LITEPUB_CONTEXT,
  "http://litepub.social/litepub/context.jsonld": LITEPUB_CONTEXT,
};

/** Pleroma and Akkoma serve LitePub from each instance at this path. */
const LITEPUB_PATH = /^\/schemas\/litepub-0\.1\.jsonld$/;

/** The local copy of a context document, or null when Quando does not know it. */
export function knownContext(url: string): unknown | null {
  const key = url.trim();
  if (Object.hasOwn(preloadedContexts, key)) return preloadedContexts[key];
  const alias = ALIASES[key];
  if (alias && Object.hasOwn(preloadedContexts, alias)) {
    return preloadedContexts[alias];
  }
  if (Object.hasOwn(EXTRA, key)) return EXTRA[key];
  try {
    const parsed = new URL(key);
    if (
      (parsed.protocol === "https:" || parsed.protocol === "http:") &&
      LITEPUB_PATH.test(parsed.pathname) && parsed.search === ""
    ) {
      return LITEPUB_CONTEXT;
    }
  } catch { /* not a URL: unknown */ }
  return null;
}
