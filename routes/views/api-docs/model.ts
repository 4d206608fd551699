/** The OpenAPI document read into what the reference page shows, defensively. */

const METHODS = [
  "get",
  "post",
  "put",
  "patch",
  "delete",
  "head",
  "options",
  "trace",
] as const;

/** How deep a request body's schema is spelled out. */
export const MAX_DEPTH = 8;
/** How many schema nodes one spelled-out schema may render. */
export const NODE_BUDGET = 400;

export type Obj = Record<string, unknown>;

/** A JSON object (not null, not an array). */
export function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value when it is a string. */
export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** An object's entries; none for anything else. */
export function entries(value: unknown): [string, unknown][] {
  return isObj(value) ? Object.entries(value) : [];
}

/** A readable, bounded JSON rendering of a value from the document. */
export function valueText(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** Lower-case words joined by dashes: an id fragment. */
function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") ||
    "x";
}

/** Hands out unique ids. */
class Ids {
  #used = new Set<string>();
  take(base: string): string {
    let id = base;
    for (let n = 2; this.#used.has(id); n++) id = `${base}-${n}`;
    this.#used.add(id);
    return id;
  }
}

// --- the document, read into what the page shows ---

/** One operation as the page shows it. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  summary?: string;
  description?: string;
  deprecated: boolean;
  /** Alternatives; an empty requirement means "or none". */
  security: Obj[];
  parameters: Obj[];
  requestBody?: Obj;
  responses: [string, Obj][];
}

interface TagGroup {
  name: string;
  id: string;
  description?: string;
  operations: Operation[];
}

/** What the page shows, read from the document. */
export interface Model {
  doc: Obj;
  documentUrl: string;
  title: string;
  version?: string;
  openapi?: string;
  description?: string;
  servers: string[];
  securitySchemes: [string, Obj][];
  tags: TagGroup[];
  /** Component schema name → anchor id. */
  schemaIds: Map<string, string>;
  schemas: [string, unknown][];
}

/** Follows a local `#/...` JSON pointer; undefined when it leads nowhere. */
function pointer(doc: Obj, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let here: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObj(here) || !Object.hasOwn(here, key)) return undefined;
    here = here[key];
  }
  return here;
}

/** A parameter, request body or response object, its `$ref` chain followed (at most 10 hops). */
function deref(doc: Obj, value: unknown): Obj | undefined {
  let here = value;
  for (let hops = 0; hops < 10; hops++) {
    if (!isObj(here)) return undefined;
    const ref = str(here.$ref);
    if (ref === undefined) return here;
    here = pointer(doc, ref);
  }
  return undefined;
}

/** Reads the document into the page's model; what is malformed is left out. */
export function readModel(doc: Obj, documentUrl: string): Model {
  const info = isObj(doc.info) ? doc.info : {};
  const components = isObj(doc.components) ? doc.components : {};
  const ids = new Ids();
  // Reserved by the page itself.
  for (const id of ["main", "toc-title", "overview", "schemas"]) ids.take(id);

  const schemas = entries(components.schemas);
  const schemaIds = new Map<string, string>();
  for (const [name] of schemas) {
    schemaIds.set(name, ids.take(`schema-${slug(name)}`));
  }

  const declared = new Map<string, string | undefined>();
  for (const tag of Array.isArray(doc.tags) ? doc.tags : []) {
    if (isObj(tag) && str(tag.name)) {
      declared.set(tag.name as string, str(tag.description));
    }
  }
  const groups = new Map<string, Operation[]>();
  for (const name of declared.keys()) groups.set(name, []);

  const globalSecurity = Array.isArray(doc.security) ? doc.security : [];
  for (const [path, rawItem] of entries(doc.paths)) {
    const item = deref(doc, rawItem);
    if (!item) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      // Operation parameters override the path item's of the same name and place.
      const params = new Map<string, Obj>();
      for (
        const p of [
          ...shared,
          ...(Array.isArray(op.parameters) ? op.parameters : []),
        ]
      ) {
        const param = deref(doc, p);
        if (param) params.set(`${param.in}:${param.name}`, param);
      }
      const security = Array.isArray(op.security)
        ? op.security
        : globalSecurity;
      const operation: Operation = {
        id: ids.take(`op-${method}-${slug(path)}`),
        method: method.toUpperCase(),
        path,
        summary: str(op.summary),
        description: str(op.description),
        deprecated: op.deprecated === true,
        security: security.filter(isObj),
        parameters: [...params.values()],
        requestBody: deref(doc, op.requestBody),
        responses: entries(op.responses).flatMap(([status, r]) => {
          const response = deref(doc, r);
          return response ? [[status, response] as [string, Obj]] : [];
        }),
      };
      const tags = Array.isArray(op.tags)
        ? op.tags.filter((t): t is string => typeof t === "string")
        : [];
      for (const tag of tags.length ? tags.slice(0, 1) : ["other"]) {
        const list = groups.get(tag) ?? [];
        list.push(operation);
        groups.set(tag, list);
      }
    }
  }
  const tags: TagGroup[] = [];
  for (const [name, operations] of groups) {
    if (!operations.length) continue;
    tags.push({
      name,
      id: ids.take(`tag-${slug(name)}`),
      description: declared.get(name),
      operations,
    });
  }
  return {
    doc,
    documentUrl,
    title: str(info.title) ?? "API",
    version: str(info.version),
    openapi: str(doc.openapi),
    description: str(info.description),
    servers: (Array.isArray(doc.servers) ? doc.servers : [])
      .flatMap((s) => isObj(s) && str(s.url) ? [s.url as string] : []),
    securitySchemes: entries(components.securitySchemes).flatMap((
      [name, s],
    ) => {
      const scheme = deref(doc, s);
      return scheme ? [[name, scheme] as [string, Obj]] : [];
    }),
    tags,
    schemaIds,
    schemas,
  };
}
