/**
 * The folders of ActivityPub fixtures the tests run over.
 *
 * `tests/fixtures/activitypub/` holds Quando's own fixtures, written by us in
 * the shapes Mastodon, Mobilizon and Gancio send: always there, always run.
 * `../shared/fixtures/activitypub/` (beside the repository, never inside it,
 * as they are other projects' data) holds payloads captured from other projects' public
 * deployments; a clone from a forge does not have it, so the tests run over it
 * only when it is present, and say so when it is not.
 */

/** One folder of fixtures and the name the tests give it. */
export interface FixtureDir {
  /** Short name used in test names: "ours" or "captured". */
  label: "ours" | "captured";
  /** The folder, with a trailing slash. */
  dir: URL;
}

export const OUR_FIXTURES: FixtureDir = {
  label: "ours",
  dir: new URL("./fixtures/activitypub/", import.meta.url),
};

/** Where the captured payloads are looked for: `../shared/` beside the repository. */
export const CAPTURED_DIR = new URL(
  "../../shared/fixtures/activitypub/",
  import.meta.url,
);

/** What the output says when the captured payloads are absent. */
export const CAPTURED_MISSING =
  "../shared/fixtures/activitypub/ not found: the captured payloads were not run " +
  "(only Quando's own fixtures in tests/fixtures/activitypub/ were)";

/** True when `url` names an existing folder; false when nothing is there. */
export function isFolder(url: URL): boolean {
  try {
    return Deno.statSync(url).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * The fixture folders to run over: ours, then the captured payloads when
 * `../shared/fixtures/activitypub/` exists. When it does not, prints
 * {@link CAPTURED_MISSING} (prefixed with `testFile`) and registers an ignored
 * test whose name says why, so that the report shows what was left out.
 */
export function fixtureDirs(testFile: string): FixtureDir[] {
  if (isFolder(CAPTURED_DIR)) {
    return [OUR_FIXTURES, { label: "captured", dir: CAPTURED_DIR }];
  }
  console.log(`${testFile}: ${CAPTURED_MISSING}`);
  Deno.test({
    name: `[captured] ${CAPTURED_MISSING}`,
    ignore: true,
    fn() {},
  });
  return [OUR_FIXTURES];
}

/** Reads and parses one JSON fixture of `dir`. */
export function readFixture(dir: FixtureDir, path: string): unknown {
  return JSON.parse(Deno.readTextFileSync(new URL(path, dir.dir)));
}
