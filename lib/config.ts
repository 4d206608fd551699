/** Environment -> typed configuration, validated once at start. */
import { z } from "zod";

const booleanFromEnv = z.enum(["true", "false", "1", "0", "yes", "no", ""])
  .transform((v) => v === "true" || v === "1" || v === "yes");

const databaseUrl = z.string().refine(
  (v) =>
    v === ":memory:" ||
    /^(file:|libsql:\/\/|https:\/\/|http:\/\/|wss?:\/\/)/.test(v),
  "must start with file:, libsql://, https:// or http://, or be :memory:",
);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8000),
  HOST: z.string().min(1).default("0.0.0.0"),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: databaseUrl.default("file:data/quando.db"),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  ADMIN_EMAIL: z.email().optional(),
  ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").optional(),
  ALLOW_PRIVATE_ADDRESSES: booleanFromEnv.default(false),
  LOG_LEVEL: z.enum(["debug", "info", "warning", "error"]).default("info"),
  PASSWORD_HASHER: z.enum(["native", "wasm"]).default("native"),
  TRUST_PROXY: booleanFromEnv.default(false),
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  ACCESS_TOKEN_TTL: z.coerce.number().int().min(60).max(31_536_000).default(
    86_400,
  ),
  OAUTH_ACCESS_TOKEN_TTL: z.coerce.number().int().min(60).max(86_400)
    .default(3_600),
  OAUTH_REFRESH_TOKEN_TTL: z.coerce.number().int().min(3_600).max(
    31_536_000,
  ).default(2_592_000),
  PUBLIC_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
  PUBLIC_CACHE_BYTES: z.coerce.number().int().min(65_536).max(1_073_741_824)
    .default(8_388_608),
  BODY_LIMIT: z.coerce.number().int().min(1024).default(1_048_576),
  MEDIA_STORE: z.enum(["db", "s3"]).default("db"),
  MEDIA_MAX_BYTES: z.coerce.number().int().min(1024).default(10_485_760),
  MEDIA_QUOTA_BYTES: z.coerce.number().int().min(0).default(209_715_200),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z.string().min(1).optional(),
  S3_REGION: z.string().min(1).default("auto"),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_HTTP_URL: z.url({ protocol: /^https?$/ }).optional(),
  MAIL_HTTP_TOKEN: z.string().min(1).optional(),
  MAIL_FROM: z.string().min(3).max(320).refine(
    (v) => !/[\r\n]/.test(v),
    "must be one line",
  ).optional(),
}).refine((e) => !e.ADMIN_EMAIL === !e.ADMIN_PASSWORD, {
  message: "ADMIN_EMAIL and ADMIN_PASSWORD must be set together",
  path: ["ADMIN_PASSWORD"],
}).refine((e) => !(e.SMTP_URL && e.MAIL_HTTP_URL), {
  message: "set SMTP_URL or MAIL_HTTP_URL, not both",
  path: ["MAIL_HTTP_URL"],
}).refine(
  (e) =>
    e.MEDIA_STORE !== "s3" ||
    (e.S3_ENDPOINT && e.S3_BUCKET && e.S3_ACCESS_KEY_ID &&
      e.S3_SECRET_ACCESS_KEY),
  {
    message:
      "MEDIA_STORE=s3 needs S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY",
    path: ["MEDIA_STORE"],
  },
);

/** Every environment variable the configuration reads. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export type LogLevel = "debug" | "info" | "warning" | "error";

export interface Config {
  port: number;
  host: string;
  /** Public origin without a trailing slash. */
  baseUrl: string;
  databaseUrl: string;
  databaseAuthToken?: string;
  /** From the environment; when absent one is generated and kept in `settings`. */
  jwtSecret?: string;
  adminEmail?: string;
  adminPassword?: string;
  allowPrivateAddresses: boolean;
  logLevel: LogLevel;
  passwordHasher: "native" | "wasm";
  /** Read the client address from X-Forwarded-For / CF-Connecting-IP. */
  trustProxy: boolean;
  /**
   * How many proxies of ours append to X-Forwarded-For: the client address is
   * that many entries from the right (1: the right-most).
   */
  trustedProxyHops: number;
  accessTokenTtl: number;
  /** Lifetime of OAuth access tokens, in seconds. */
  oauthAccessTokenTtl: number;
  /** Lifetime of each OAuth refresh token (renewed on rotation), in seconds. */
  oauthRefreshTokenTtl: number;
  /**
   * How long an anonymous GET of events or feeds may be answered from memory,
   * in milliseconds (any write ends it sooner); 0 turns the cache off.
   */
  publicCacheMs: number;
  /**
   * Memory the public-read cache may hold, in bytes (bodies, headers and
   * keys); answers of filtered requests take a quarter more, apart.
   */
  publicCacheBytes: number;
  /** Largest accepted request body, in bytes (uploads have their own limit). */
  bodyLimit: number;
  mediaStore: "db" | "s3";
  /** Largest accepted upload, in bytes. */
  mediaMaxBytes: number;
  /**
   * Bytes of stored files each user may hold (anonymous submissions share
   * one such quota); 0 means no quota.
   */
  mediaQuotaBytes: number;
  s3?: {
    endpoint: string;
    bucket: string;
    region: string;
    accessKeyId: string;
    secretAccessKey: string;
  };
  /**
   * Outgoing e-mail (absent: e-mail is off): over SMTP (main.ts builds the
   * transport) or one JSON POST per message to `httpUrl`; `from` is the
   * sender (MAIL_FROM, else noreply@ the host of BASE_URL).
   */
  mail?: {
    smtpUrl?: string;
    httpUrl?: string;
    httpToken?: string;
    from: string;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
    this.name = "ConfigError";
  }
}

/** Reads and validates the configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings count as unset, as shells and .env files often leave them.
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ""),
  );
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) =>
        `${i.path.join(".") || "env"}: ${i.message}`
      ),
    );
  }
  const e = parsed.data;
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(
    /\/+$/,
    "",
  );
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    databaseAuthToken: e.DATABASE_AUTH_TOKEN,
    jwtSecret: e.JWT_SECRET,
    adminEmail: e.ADMIN_EMAIL?.trim().toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    allowPrivateAddresses: e.ALLOW_PRIVATE_ADDRESSES,
    logLevel: e.LOG_LEVEL,
    passwordHasher: e.PASSWORD_HASHER,
    trustProxy: e.TRUST_PROXY,
    trustedProxyHops: e.TRUSTED_PROXY_HOPS,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    oauthAccessTokenTtl: e.OAUTH_ACCESS_TOKEN_TTL,
    oauthRefreshTokenTtl: e.OAUTH_REFRESH_TOKEN_TTL,
    publicCacheMs: e.PUBLIC_CACHE_MS,
    publicCacheBytes: e.PUBLIC_CACHE_BYTES,
    bodyLimit: e.BODY_LIMIT,
    mediaStore: e.MEDIA_STORE,
    mediaMaxBytes: e.MEDIA_MAX_BYTES,
    mediaQuotaBytes: e.MEDIA_QUOTA_BYTES,
    s3: e.MEDIA_STORE === "s3"
      ? {
        endpoint: e.S3_ENDPOINT!,
        bucket: e.S3_BUCKET!,
        region: e.S3_REGION,
        accessKeyId: e.S3_ACCESS_KEY_ID!,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY!,
      }
      : undefined,
    mail: e.SMTP_URL || e.MAIL_HTTP_URL
      ? {
        smtpUrl: e.SMTP_URL,
        httpUrl: e.MAIL_HTTP_URL,
        httpToken: e.MAIL_HTTP_TOKEN,
        from: e.MAIL_FROM ?? `noreply@${new URL(baseUrl).hostname}`,
      }
      : undefined,
  };
}

/** Where the database is, for the start-up line: no path details, no credentials. */
export function describeDatabase(url: string): string {
  if (url === ":memory:") return "embedded, in memory";
  if (url.startsWith("file:")) return `embedded file ${url.slice(5)}`;
  try {
    const { protocol, host } = new URL(url);
    return `remote ${protocol}//${host}`;
  } catch {
    return "remote";
  }
}
