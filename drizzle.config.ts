import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "turso",
  schema: "./db/schema.ts",
  out: "./db/migrations",
  dbCredentials: {
    url: Deno.env.get("DATABASE_URL") ?? "file:data/quando.db",
    authToken: Deno.env.get("DATABASE_AUTH_TOKEN"),
  },
});
