/**
 * The API reference: one server-rendered page built from the OpenAPI
 * document, with no script, no font and nothing fetched from anywhere else.
 * Operations grouped by tag, each with its method, path, summary,
 * description, security, parameters, request body (the JSON schema spelled
 * out, `$ref`s resolved, cycles cut) and responses; the components' schemas
 * at the end, so response schemas can be linked to.
 *
 * Every text of the document is rendered as text (JSX escapes it); only
 * backtick spans become `<code>`. The document is read defensively: a
 * malformed or hostile one renders what it can and never hangs.
 */
import type { Child } from "hono/jsx";
import { raw } from "hono/html";

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
const MAX_DEPTH = 8;
/** How many schema nodes one spelled-out schema may render. */
const NODE_BUDGET = 400;

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function entries(value: unknown): [string, unknown][] {
  return isObj(value) ? Object.entries(value) : [];
}

/** A readable, bounded JSON rendering of a value from the document. */
function valueText(value: unknown): string {
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

interface Operation {
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

interface Model {
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

function readModel(doc: Obj, documentUrl: string): Model {
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

// --- prose ---

/** Text with `code spans`, as text and `<code>` (never markup from the document). */
function Inline(props: { text: string }) {
  const parts = props.text.split(/`([^`\n]+)`/);
  return (
    <>
      {parts.map((part, i) => i % 2 ? <code>{part}</code> : part)}
    </>
  );
}

/** Paragraphs split on blank lines. */
function Prose(props: { text?: string; class?: string }) {
  if (!props.text?.trim()) return null;
  return (
    <>
      {props.text.split(/\n\s*\n/).filter((p) => p.trim()).map((p) => (
        <p class={props.class}>
          <Inline text={p.trim()} />
        </p>
      ))}
    </>
  );
}

// --- schemas ---

interface SchemaContext {
  model: Model;
  /** Spell out `$ref`s (request bodies) or only link them (the schemas section). */
  expand: boolean;
  /** The component names being spelled out, outermost first. */
  trail: string[];
  depth: number;
  budget: { nodes: number; noted: boolean };
}

const COMPONENT = /^#\/components\/schemas\/(.+)$/;

/** The component name a `$ref` points at, or undefined for any other ref. */
function componentName(ref: string): string | undefined {
  const m = ref.match(COMPONENT);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    return m[1];
  }
}

function SchemaLink(props: { model: Model; ref: string }) {
  const name = componentName(props.ref);
  const id = name === undefined ? undefined : props.model.schemaIds.get(name);
  if (id === undefined) {
    return <code class="unresolved">{props.ref}</code>;
  }
  return <a class="schema-link" href={`#${id}`}>{name}</a>;
}

/** The schema behind a component `$ref`, or undefined. */
function componentSchema(model: Model, ref: string): unknown {
  const name = componentName(ref);
  if (name === undefined || !model.schemaIds.has(name)) return undefined;
  const schemas = (model.doc.components as Obj).schemas as Obj;
  return schemas[name];
}

function isNullSchema(s: unknown): boolean {
  return isObj(s) && (s.type === "null" ||
    (Array.isArray(s.type) && s.type.length === 1 && s.type[0] === "null") ||
    (s.nullable === true && Object.keys(s).length === 1));
}

/** A short type: `string (uri)`, `integer or null`, `array of Media`. */
function TypeLabel(
  props: { schema: unknown; model: Model; depth?: number },
): Child {
  const { schema, model } = props;
  const depth = props.depth ?? 0;
  if (!isObj(schema)) return schema === false ? "nothing" : "any";
  if (depth > 4) return "…";
  const ref = str(schema.$ref);
  if (ref !== undefined) return <SchemaLink model={model} ref={ref} />;
  const next = depth + 1;
  const alternatives = (key: "anyOf" | "oneOf" | "allOf", joiner: string) => {
    const list = (schema[key] as unknown[]).slice(0, 8);
    // `allOf: [X, {type: [object, null]}]` is how "X or null" is written.
    if (key === "allOf") {
      const real = list.filter((s) =>
        !(isObj(s) && !s.$ref && !s.properties &&
          Array.isArray(s.type) && s.type.includes("null"))
      );
      if (real.length === 1 && real.length < list.length) {
        return (
          <>
            <TypeLabel schema={real[0]} model={model} depth={next} /> or null
          </>
        );
      }
      if (real.length === 1) {
        return <TypeLabel schema={real[0]} model={model} depth={next} />;
      }
    }
    return (
      <>
        {list.map((s, i) => (
          <>
            {i > 0 && ` ${joiner} `}
            <TypeLabel schema={s} model={model} depth={next} />
          </>
        ))}
      </>
    );
  };
  if (Array.isArray(schema.anyOf)) return alternatives("anyOf", "or");
  if (Array.isArray(schema.oneOf)) return alternatives("oneOf", "or");
  if (Array.isArray(schema.allOf)) return alternatives("allOf", "and");
  if ("const" in schema) return <code>{valueText(schema.const)}</code>;

  const types = (Array.isArray(schema.type) ? schema.type : [schema.type])
    .filter((t): t is string => typeof t === "string");
  if (schema.nullable === true && !types.includes("null")) types.push("null");
  if (!types.length) {
    if (schema.properties) types.push("object");
    else if (schema.items || schema.prefixItems) types.push("array");
    else if (Array.isArray(schema.enum)) types.push("enum");
    else return "any";
  }
  const format = str(schema.format);
  return (
    <>
      {types.map((t, i) => (
        <>
          {i > 0 && " or "}
          {t === "array"
            ? Array.isArray(schema.prefixItems)
              ? (
                <>
                  [{(schema.prefixItems as unknown[]).slice(0, 8).map((
                    s,
                    j,
                  ) => (
                    <>
                      {j > 0 && ", "}
                      <TypeLabel schema={s} model={model} depth={next} />
                    </>
                  ))}]
                </>
              )
              : schema.items === undefined
              ? "array"
              : (
                <>
                  array of{" "}
                  <TypeLabel schema={schema.items} model={model} depth={next} />
                </>
              )
            : t === "object" && isObj(schema.additionalProperties) &&
                !schema.properties &&
                Object.keys(schema.additionalProperties).length
            ? (
              <>
                map of{" "}
                <TypeLabel
                  schema={schema.additionalProperties}
                  model={model}
                  depth={next}
                />
              </>
            )
            : t === "null"
            ? "null"
            : `${t}${format && t !== "null" ? ` (${format})` : ""}`}
        </>
      ))}
    </>
  );
}

/** Limits and defaults, as short phrases. */
function constraints(schema: Obj): Child[] {
  const out: Child[] = [];
  const num = (k: string) =>
    typeof schema[k] === "number" ? schema[k] as number : undefined;
  const range = (
    min: number | undefined,
    max: number | undefined,
    unit: string,
  ) => {
    if (min !== undefined && max !== undefined) {
      out.push(min === max ? `exactly ${min}${unit}` : `${min}–${max}${unit}`);
    } else if (min !== undefined) out.push(`at least ${min}${unit}`);
    else if (max !== undefined) out.push(`at most ${max}${unit}`);
  };
  range(num("minLength"), num("maxLength"), " characters");
  range(num("minimum"), num("maximum"), "");
  if (num("exclusiveMinimum") !== undefined) {
    out.push(`greater than ${num("exclusiveMinimum")}`);
  }
  if (num("exclusiveMaximum") !== undefined) {
    out.push(`less than ${num("exclusiveMaximum")}`);
  }
  range(num("minItems"), num("maxItems"), " items");
  range(num("minProperties"), num("maxProperties"), " properties");
  if (schema.uniqueItems === true) out.push("unique items");
  if (typeof schema.pattern === "string") {
    out.push(
      <>
        pattern <code>{schema.pattern}</code>
      </>,
    );
  }
  if (schema.readOnly === true) out.push("read-only");
  if (schema.writeOnly === true) out.push("write-only");
  if (schema.deprecated === true) out.push("deprecated");
  if ("default" in schema) {
    out.push(
      <>
        default <code>{valueText(schema.default)}</code>
      </>,
    );
  }
  return out;
}

function examplesOf(schema: Obj, extra?: unknown): unknown[] {
  const list: unknown[] = [];
  if (extra !== undefined) list.push(extra);
  if ("example" in schema) list.push(schema.example);
  if (Array.isArray(schema.examples)) list.push(...schema.examples.slice(0, 3));
  return list.slice(0, 3);
}

/** The facts line under a name: type, required, limits, enum, examples, description. */
function Facts(
  props: {
    schema: unknown;
    description?: string;
    example?: unknown;
  },
) {
  const schema = isObj(props.schema) ? props.schema : {};
  const limits = constraints(schema);
  const values = Array.isArray(schema.enum) ? schema.enum.slice(0, 50) : [];
  const examples = examplesOf(schema, props.example);
  const description = props.description ?? str(schema.description);
  const title = str(schema.title);
  return (
    <>
      {title && title !== description && <p class="desc">{title}</p>}
      <Prose text={description} class="desc" />
      {limits.length > 0 && (
        <p class="limits">
          {limits.map((l, i) => <>{i > 0 && "; "}{l}</>)}
        </p>
      )}
      {values.length > 0 && (
        <p class="enum">
          One of: {values.map((v, i) => (
            <>
              {i > 0 && ", "}
              <code>{valueText(v)}</code>
            </>
          ))}
        </p>
      )}
      {examples.length > 0 && (
        <p class="example">
          Example{examples.length > 1 ? "s" : ""}: {examples.map((v, i) => (
            <>
              {i > 0 && ", "}
              <code>{valueText(v)}</code>
            </>
          ))}
        </p>
      )}
    </>
  );
}

/** Properties of an object schema (allOf members merged), component refs resolved. */
function objectShape(
  schema: Obj,
  ctx: SchemaContext,
): { properties: [string, unknown][]; required: Set<string> } | undefined {
  const properties: [string, unknown][] = [];
  const required = new Set<string>();
  const add = (s: unknown, hops: number) => {
    if (!isObj(s) || hops > 10) return;
    if (typeof s.$ref === "string") {
      const name = componentName(s.$ref);
      if (name !== undefined && !ctx.trail.includes(name)) {
        add(componentSchema(ctx.model, s.$ref), hops + 1);
      }
      return;
    }
    for (const entry of entries(s.properties)) properties.push(entry);
    if (Array.isArray(s.required)) {
      for (const r of s.required) if (typeof r === "string") required.add(r);
    }
    if (Array.isArray(s.allOf)) { for (const m of s.allOf) add(m, hops + 1); }
  };
  if (!isObj(schema.properties) && !Array.isArray(schema.allOf)) {
    return undefined;
  }
  add(schema, 0);
  return properties.length ? { properties, required } : undefined;
}

/** What is nested under a property: its object's properties, or its items'. */
function Nested(props: { schema: unknown; ctx: SchemaContext }): Child {
  const { ctx } = props;
  let schema = props.schema;
  if (!isObj(schema)) return null;
  if (ctx.depth >= MAX_DEPTH || ctx.budget.nodes <= 0) return null;
  let trail = ctx.trail;
  // Items of an array, and a single non-null alternative, are looked through.
  for (let i = 0; i < 4 && isObj(schema); i++) {
    const s: Obj = schema;
    if (s.items !== undefined && !s.properties) schema = s.items;
    else if (Array.isArray(s.allOf) && !s.properties) {
      const real = s.allOf.filter((m) =>
        !isNullSchema(m) &&
        !(isObj(m) && !m.$ref && !m.properties && Array.isArray(m.type) &&
          m.type.includes("null"))
      );
      if (real.length !== 1) break;
      schema = real[0];
    } else if (Array.isArray(s.anyOf ?? s.oneOf)) {
      const real = ((s.anyOf ?? s.oneOf) as unknown[]).filter((m) =>
        !isNullSchema(m)
      );
      if (real.length !== 1) break;
      schema = real[0];
    } else break;
  }
  if (!isObj(schema)) return null;
  if (typeof schema.$ref === "string") {
    if (!ctx.expand) return null;
    const name = componentName(schema.$ref);
    if (name === undefined) return null;
    if (trail.includes(name)) {
      return (
        <p class="recursive">
          Recursive: <SchemaLink model={ctx.model} ref={schema.$ref} />{" "}
          contains itself; see above.
        </p>
      );
    }
    trail = [...trail, name];
    schema = componentSchema(ctx.model, schema.$ref);
    if (!isObj(schema)) return null;
  }
  const shape = objectShape(schema, { ...ctx, trail });
  if (!shape) {
    const alternatives = Array.isArray(schema.oneOf ?? schema.anyOf)
      ? ((schema.oneOf ?? schema.anyOf) as unknown[]).filter((m) =>
        isObj(m) && (m.properties || m.$ref)
      )
      : [];
    if (alternatives.length < 2 || !ctx.expand) return null;
    return (
      <ul class="alternatives">
        {alternatives.slice(0, 8).map((alt) => (
          <li>
            <span class="alt-label">
              One of: <TypeLabel schema={alt} model={ctx.model} />
            </span>
            <Nested
              schema={alt}
              ctx={{ ...ctx, trail, depth: ctx.depth + 1 }}
            />
          </li>
        ))}
      </ul>
    );
  }
  return (
    <Properties
      shape={shape}
      ctx={{ ...ctx, trail, depth: ctx.depth + 1 }}
    />
  );
}

function Properties(
  props: {
    shape: { properties: [string, unknown][]; required: Set<string> };
    ctx: SchemaContext;
  },
) {
  const { shape, ctx } = props;
  const items = shape.properties.map(([name, schema]) => {
    if (ctx.budget.nodes-- <= 0) return null;
    return (
      <li>
        <Field
          name={name}
          required={shape.required.has(name)}
          schema={schema}
          model={ctx.model}
        />
        <Facts schema={schema} />
        {ctx.expand || !(isObj(schema) && schema.$ref)
          ? <Nested schema={schema} ctx={ctx} />
          : null}
      </li>
    );
  });
  // Said once, by the list where the budget ran out.
  const cut = ctx.budget.nodes < 0 && !ctx.budget.noted;
  if (cut) ctx.budget.noted = true;
  return (
    <ul class="props">
      {items}
      {cut && (
        <li class="truncated">
          The rest of this schema is too large to show here: see{" "}
          <a href={ctx.model.documentUrl}>the OpenAPI document</a>.
        </li>
      )}
    </ul>
  );
}

/** `name` type required, the line that heads a property or a parameter. */
function Field(
  props: {
    name: string;
    required: boolean;
    schema: unknown;
    model: Model;
    where?: string;
  },
) {
  return (
    <p class="field">
      <code class="name">{props.name}</code>{" "}
      <span class="type">
        <TypeLabel schema={props.schema} model={props.model} />
      </span>
      {props.where && (
        <>
          {" "}
          <span class="where">in {props.where}</span>
        </>
      )}
      {props.required && (
        <>
          {" "}
          <span class="req">required</span>
        </>
      )}
    </p>
  );
}

/** A whole schema: its type, facts and properties. */
function SchemaBlock(
  props: { schema: unknown; ctx: SchemaContext; showType?: boolean },
) {
  const { schema, ctx } = props;
  const ref = isObj(schema) ? str(schema.$ref) : undefined;
  return (
    <div class="schema">
      {props.showType !== false && ref !== undefined && (
        <p class="field">
          Schema: <SchemaLink model={ctx.model} ref={ref} />
        </p>
      )}
      {props.showType !== false && ref === undefined &&
        !(isObj(schema) && schema.type === "object" && schema.properties) && (
        <p class="field">
          <span class="type">
            <TypeLabel schema={schema} model={ctx.model} />
          </span>
        </p>
      )}
      {ref === undefined && <Facts schema={schema} />}
      {ref !== undefined && ctx.expand && (
        <Facts schema={componentSchema(ctx.model, ref)} />
      )}
      <Nested schema={schema} ctx={ctx} />
    </div>
  );
}

function schemaContext(model: Model, expand: boolean): SchemaContext {
  return {
    model,
    expand,
    trail: [],
    depth: 0,
    budget: { nodes: NODE_BUDGET, noted: false },
  };
}

// --- content (request bodies and responses) ---

/** Media types grouped by identical schema, so a JSON-or-form body shows once. */
function byShape(content: unknown): { types: string[]; media: Obj }[] {
  const groups: { key: string; types: string[]; media: Obj }[] = [];
  for (const [type, media] of entries(content)) {
    if (!isObj(media)) continue;
    let key: string;
    try {
      key = JSON.stringify(media.schema) ?? "";
    } catch {
      key = `#${groups.length}`;
    }
    const group = groups.find((g) => g.key === key);
    if (group) group.types.push(type);
    else groups.push({ key, types: [type], media });
  }
  return groups;
}

function MediaTypes(props: { types: string[] }) {
  return (
    <>
      {props.types.map((t, i) => (
        <>
          {i > 0 && " or "}
          <code class="media-type">{t}</code>
        </>
      ))}
    </>
  );
}

function RequestBody(props: { body: Obj; model: Model }) {
  const { body, model } = props;
  const groups = byShape(body.content);
  return (
    <section class="block">
      <h4>
        Request body{" "}
        {body.required === true && <span class="req-note">(required)</span>}
        {body.required === false && <span class="req-note">(optional)</span>}
      </h4>
      <Prose text={str(body.description)} class="desc" />
      {groups.map((g) => (
        <div class="content">
          <p class="content-types">
            <MediaTypes types={g.types} />
          </p>
          {g.media.schema !== undefined && (
            <SchemaBlock
              schema={g.media.schema}
              ctx={schemaContext(model, true)}
            />
          )}
          {"example" in g.media && (
            <p class="example">
              Example: <code>{valueText(g.media.example)}</code>
            </p>
          )}
        </div>
      ))}
    </section>
  );
}

function statusClass(status: string): string {
  const first = status[0];
  return /^[1-5]$/.test(first) ? `status s${first}xx` : "status";
}

function Responses(props: { responses: [string, Obj][]; model: Model }) {
  const { responses, model } = props;
  return (
    <section class="block">
      <h4>Responses</h4>
      <ul class="responses">
        {responses.map(([status, response]) => (
          <li>
            <span class={statusClass(status)}>{status}</span>
            <div class="response-text">
              <Inline text={str(response.description) ?? ""} />
              {byShape(response.content).map((g) => (
                <span class="response-body">
                  <MediaTypes types={g.types} />
                  {g.media.schema !== undefined && (
                    <>
                      {": "}
                      <span class="type">
                        <TypeLabel schema={g.media.schema} model={model} />
                      </span>
                    </>
                  )}
                </span>
              ))}
              {entries(response.headers).length > 0 && (
                <span class="response-body">
                  Headers: {entries(response.headers).map(([name], i) => (
                    <>
                      {i > 0 && ", "}
                      <code>{name}</code>
                    </>
                  ))}
                </span>
              )}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

// --- operations ---

function schemeWords(name: string, model: Model): string {
  const scheme = model.securitySchemes.find(([n]) => n === name)?.[1];
  if (!scheme) return name;
  switch (scheme.type) {
    case "http":
      return str(scheme.scheme)?.toLowerCase() === "bearer"
        ? "Bearer token"
        : `HTTP ${str(scheme.scheme) ?? ""} authentication`.replace("  ", " ");
    case "apiKey":
      return `API key in the ${str(scheme.in) ?? ""} ${str(scheme.name) ?? ""}`
        .replace(/\s+/g, " ").trim();
    case "oauth2":
      return "OAuth 2.0 token";
    case "openIdConnect":
      return "OpenID Connect token";
    default:
      return name;
  }
}

function Security(props: { security: Obj[]; model: Model }) {
  const { security, model } = props;
  const optional = security.some((r) => Object.keys(r).length === 0);
  const required = security.filter((r) => Object.keys(r).length > 0);
  return (
    <div class="auth">
      <dt>Authentication:</dt>{" "}
      <dd>
        {required.length === 0 ? "None" : (
          <>
            {required.map((requirement, i) => (
              <>
                {i > 0 && " or "}
                {entries(requirement).map(([name, scopes], j) => {
                  const list = Array.isArray(scopes)
                    ? scopes.filter((s): s is string => typeof s === "string")
                    : [];
                  return (
                    <>
                      {j > 0 && " and "}
                      <a href="#authentication">{schemeWords(name, model)}</a>
                      {list.length > 0 && (
                        <>
                          {" "}with scope{list.length > 1 ? "s" : ""}{" "}
                          {list.map((s, k) => (
                            <>
                              {k > 0 && ", "}
                              <code>{s}</code>
                            </>
                          ))}
                        </>
                      )}
                    </>
                  );
                })}
              </>
            ))}
            {optional && " (optional)"}
          </>
        )}
      </dd>
    </div>
  );
}

function Parameters(props: { parameters: Obj[]; model: Model }) {
  const { parameters, model } = props;
  return (
    <section class="block">
      <h4>Parameters</h4>
      <ul class="props params">
        {parameters.map((p) => {
          const schema = isObj(p.schema) ? p.schema : {};
          const description = str(p.description) ?? str(schema.description);
          return (
            <li>
              <Field
                name={str(p.name) ?? "?"}
                required={p.required === true}
                schema={schema}
                model={model}
                where={str(p.in)}
              />
              <Facts
                schema={schema}
                description={description}
                example={p.example}
              />
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function OperationView(props: { op: Operation; model: Model }) {
  const { op, model } = props;
  const method = op.method.toLowerCase();
  return (
    <article class="op" id={op.id} aria-labelledby={`${op.id}-title`}>
      <h3 class="op-title" id={`${op.id}-title`}>
        <span class={`method m-${method}`}>{op.method}</span>{" "}
        <span class="path">{op.path}</span>
      </h3>
      {op.summary && (
        <p class="summary">
          <Inline text={op.summary} />
        </p>
      )}
      {op.deprecated && <p class="deprecated">Deprecated.</p>}
      <Prose text={op.description} class="desc" />
      <dl class="op-facts">
        <Security security={op.security} model={model} />
      </dl>
      {op.parameters.length > 0 && (
        <Parameters parameters={op.parameters} model={model} />
      )}
      {op.requestBody && <RequestBody body={op.requestBody} model={model} />}
      {op.responses.length > 0 && (
        <Responses responses={op.responses} model={model} />
      )}
    </article>
  );
}

// --- the page ---

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1a1b1e; --muted: #4d5158; --line: #d5d8de;
  --panel: #f5f6f8; --accent: #1d4ed8; --danger: #a4161a;
  --get: #13692e; --post: #1d4ed8; --put: #8a4500; --patch: #6b2fb3; --delete: #a4161a; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #141518; --fg: #ececf0; --muted: #b4b7be; --line: #383b42; --panel: #1c1e22;
    --accent: #9dbbff; --danger: #ff9b94;
    --get: #7ee2a0; --post: #9dbbff; --put: #ffc97a; --patch: #d3b5ff; --delete: #ff9b94; }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; scroll-padding-top: 0.75rem; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-underline-offset: 0.15em; }
a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 2px; }
code, .path, .method, .status { font-family: ui-monospace, "SFMono-Regular", "Cascadia Mono", "DejaVu Sans Mono",
  Menlo, Consolas, monospace; }
code { font-size: 0.9em; overflow-wrap: anywhere; }
p { margin: 0.35rem 0; }
.skip { position: absolute; left: -9999px; top: 0; }
.skip:focus { left: 1rem; top: 0.5rem; background: var(--bg); padding: 0.5rem 0.75rem; z-index: 2; }
header.site, footer.site { padding: 0.85rem 1rem; }
header.site { border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; align-items: baseline;
  gap: 0.25rem 1.25rem; }
.brand { font-weight: 700; font-size: 1.15rem; }
.brand .version { font-weight: 400; color: var(--muted); font-size: 0.95rem; margin-left: 0.4rem; }
header.site ul { list-style: none; display: flex; flex-wrap: wrap; gap: 0.25rem 1.1rem; margin: 0; padding: 0; }
footer.site { border-top: 1px solid var(--line); color: var(--muted); font-size: 0.95rem; }
.shell { max-width: 84rem; margin: 0 auto; }
nav.toc { padding: 0.75rem 1rem 0; }
.toc-title { font-weight: 700; margin: 0 0 0.4rem; }
.toc ul { list-style: none; margin: 0; padding: 0; }
.toc > ul { display: flex; flex-wrap: wrap; gap: 0.4rem; }
.toc > ul > li > a { display: inline-block; padding: 0.2rem 0.65rem; border: 1px solid var(--line);
  border-radius: 999px; text-decoration: none; }
.toc > ul > li > a:hover { border-color: var(--accent); }
.toc .count { color: var(--muted); font-size: 0.85rem; }
.toc .ops { display: none; }
main { padding: 0 1rem 2rem; min-width: 0; }
h1 { font-size: 1.75rem; line-height: 1.2; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.35rem; line-height: 1.3; margin: 2.25rem 0 0.75rem; padding-bottom: 0.3rem;
  border-bottom: 2px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 1.05rem; line-height: 1.35; margin: 1.25rem 0 0.4rem; }
h4 { font-size: 0.95rem; margin: 1rem 0 0.35rem; }
.lede { font-size: 1.05rem; }
.op { border: 1px solid var(--line); border-radius: 0.75rem; padding: 0.25rem 1rem 0.9rem; margin: 1rem 0;
  background: var(--bg); }
.op-title { margin-top: 0.75rem; }
.op-title .method { margin-right: 0.35rem; vertical-align: 0.08em; }
.path { font-weight: 600; overflow-wrap: anywhere; min-width: 0; }
.method { display: inline-block; min-width: 4.2rem; text-align: center; font-size: 0.8rem; font-weight: 700;
  letter-spacing: 0.03em; padding: 0.1rem 0.4rem; border: 1.5px solid currentColor; border-radius: 0.35rem; }
.m-get { color: var(--get); } .m-post { color: var(--post); } .m-put { color: var(--put); }
.m-patch { color: var(--patch); } .m-delete { color: var(--delete); }
.summary { font-weight: 600; }
.desc, .limits, .enum, .example, .recursive { overflow-wrap: anywhere; }
.limits, .enum, .example, .recursive, .where, .req-note { color: var(--muted); font-size: 0.92rem; }
.deprecated { color: var(--danger); font-weight: 600; }
.op-facts { margin: 0.5rem 0; }
.op-facts dt { display: inline; font-weight: 600; }
.op-facts dd { display: inline; margin: 0; }
.block { border-top: 1px solid var(--line); margin-top: 0.75rem; }
.props { list-style: none; margin: 0.25rem 0; padding: 0; }
.props p { margin: 0.15rem 0; }
.props > li { padding: 0.45rem 0 0.45rem 0.75rem; border-left: 3px solid var(--line); margin: 0.35rem 0; }
.props .props { margin-left: 0.15rem; }
.field { margin: 0; }
.field > * { margin-right: 0.4rem; }
.field .name { font-weight: 700; font-size: 0.95rem; }
.type { color: var(--muted); font-size: 0.92rem; overflow-wrap: anywhere; min-width: 0; }
.type a { color: var(--accent); }
.req { color: var(--danger); font-size: 0.8rem; font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; }
.content-types { margin-top: 0.5rem; }
.media-type { display: inline-block; max-width: 100%; background: var(--panel); border: 1px solid var(--line);
  border-radius: 0.3rem; padding: 0 0.3rem; }
.alternatives { list-style: none; padding: 0; }
.alt-label { font-weight: 600; }
.responses { list-style: none; margin: 0.25rem 0; padding: 0; }
.responses > li { display: flex; gap: 0.75rem; padding: 0.4rem 0; border-bottom: 1px solid var(--line); }
.responses > li:last-child { border-bottom: 0; }
.response-text { min-width: 0; overflow-wrap: anywhere; }
.response-body { display: block; font-size: 0.92rem; }
.status { font-weight: 700; flex: 0 0 2.6rem; }
.s2xx { color: var(--get); } .s3xx { color: var(--muted); } .s4xx { color: var(--put); }
.s5xx { color: var(--delete); }
.overview dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0.35rem 1rem; }
.overview dt { font-weight: 600; }
.overview dd { margin: 0; overflow-wrap: anywhere; }
.schema-def { border-top: 1px solid var(--line); padding-top: 0.25rem; }
.schema-def h3 code { font-size: 1.05rem; }
.truncated { color: var(--muted); }
@media (max-width: 30rem) {
  .overview dl { grid-template-columns: minmax(0, 1fr); gap: 0.1rem; }
  .overview dd + dt { margin-top: 0.5rem; }
  .op { padding: 0.25rem 0.75rem 0.75rem; }
  .props > li { padding-left: 0.55rem; }
}
@media (min-width: 64rem) {
  .shell { display: grid; grid-template-columns: 19rem minmax(0, 1fr); gap: 2rem; padding: 0 1.5rem; }
  nav.toc { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto;
    padding: 1rem 0.5rem 2rem 0; border-right: 1px solid var(--line); }
  .toc > ul { display: block; }
  .toc > ul > li { margin: 0 0 0.75rem; }
  .toc > ul > li > a { border: 0; padding: 0; font-weight: 700; border-radius: 0; }
  .toc .ops { display: block; margin-top: 0.2rem; }
  .toc .ops a { display: flex; gap: 0.5rem; align-items: baseline; padding: 0.12rem 0.3rem; border-radius: 0.3rem;
    text-decoration: none; font-size: 0.88rem; color: var(--fg); }
  .toc .ops a:hover { background: var(--panel); }
  .toc .ops .method { min-width: 3.6rem; font-size: 0.7rem; border-width: 1px; padding: 0 0.25rem; }
  .toc .ops .path { font-weight: 400; overflow-wrap: anywhere; }
  main { padding: 0 0 3rem; max-width: 58rem; }
  header.site { padding: 0.85rem 1.5rem; }
  footer.site { padding: 1rem 1.5rem 2rem; }
}
`;

function Toc(props: { model: Model }) {
  return (
    <nav class="toc" aria-labelledby="toc-title">
      <p class="toc-title" id="toc-title">Contents</p>
      <ul>
        <li>
          <a href="#overview">Overview</a>
        </li>
        {props.model.tags.map((tag) => (
          <li>
            <a href={`#${tag.id}`}>
              {tag.name} <span class="count">({tag.operations.length})</span>
            </a>
            <ul class="ops">
              {tag.operations.map((op) => (
                <li>
                  <a href={`#${op.id}`}>
                    <span class={`method m-${op.method.toLowerCase()}`}>
                      {op.method}
                    </span>
                    <span class="path">{op.path}</span>
                  </a>
                </li>
              ))}
            </ul>
          </li>
        ))}
        {props.model.schemas.length > 0 && (
          <li>
            <a href="#schemas">Schemas</a>
          </li>
        )}
      </ul>
    </nav>
  );
}

function Overview(props: { model: Model; documentUrl: string }) {
  const { model } = props;
  const errorRef = model.schemaIds.has("Error")
    ? "#/components/schemas/Error"
    : undefined;
  return (
    <section class="overview" aria-labelledby="overview">
      <h2 id="overview">Overview</h2>
      <dl>
        {model.servers.length > 0 && (
          <>
            <dt>Base URL</dt>
            <dd>
              {model.servers.map((url, i) => (
                <>
                  {i > 0 && ", "}
                  <code>{url}</code>
                </>
              ))}
            </dd>
          </>
        )}
        {model.version && (
          <>
            <dt>Version</dt>
            <dd>{model.version}</dd>
          </>
        )}
        <dt>Machine-readable</dt>
        <dd>
          <a href={props.documentUrl}>
            OpenAPI {model.openapi ?? ""} document (JSON)
          </a>
        </dd>
      </dl>
      <h3 id="authentication">Authentication</h3>
      {model.securitySchemes.length === 0
        ? <p>No authentication scheme is declared.</p>
        : model.securitySchemes.map(([name, scheme]) => (
          <>
            <p>
              <strong>{schemeWords(name, model)}</strong>
              {scheme.type === "http" &&
                str(scheme.scheme)?.toLowerCase() === "bearer" && (
                <>
                  {" "}in the header <code>Authorization: Bearer …</code>
                </>
              )}
              {str(scheme.bearerFormat) && (
                <>
                  {" "}
                  <span class="where">({str(scheme.bearerFormat)})</span>
                </>
              )}
            </p>
            <Prose text={str(scheme.description)} class="desc" />
          </>
        ))}
      <p>
        Operations marked “Authentication: None” need no token.
      </p>
      {errorRef && (
        <>
          <h3 id="errors">Errors</h3>
          <p>
            Every error response has a body of this shape (the{" "}
            <SchemaLink model={model} ref={errorRef} /> schema):
          </p>
          <SchemaBlock
            schema={{ $ref: errorRef }}
            ctx={schemaContext(model, true)}
            showType={false}
          />
        </>
      )}
    </section>
  );
}

function SchemasSection(props: { model: Model }) {
  const { model } = props;
  if (!model.schemas.length) return null;
  return (
    <section aria-labelledby="schemas">
      <h2 id="schemas">Schemas</h2>
      <p>
        The named shapes the operations refer to. Nested names link to their own
        entry.
      </p>
      {model.schemas.map(([name, schema]) => (
        <section
          class="schema-def"
          id={model.schemaIds.get(name)}
          aria-labelledby={`${model.schemaIds.get(name)}-title`}
        >
          <h3 id={`${model.schemaIds.get(name)}-title`}>
            <code>{name}</code>
          </h3>
          <SchemaBlock schema={schema} ctx={schemaContext(model, false)} />
        </section>
      ))}
    </section>
  );
}

/** The whole page. `nonce` must match the response's CSP `style-src`. */
export function ApiDocsPage(
  props: { doc: unknown; nonce: string; documentUrl?: string },
) {
  const documentUrl = props.documentUrl ?? "/api/openapi.json";
  const model = readModel(isObj(props.doc) ? props.doc : {}, documentUrl);
  return (
    <>
      {raw("<!DOCTYPE html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <title>{model.title} reference</title>
          <meta
            name="description"
            content={`Reference of every operation of the ${model.title}.`}
          />
          <link rel="icon" href="data:," />
          <style nonce={props.nonce}>{raw(STYLE)}</style>
        </head>
        <body>
          <a class="skip" href="#main">Skip to content</a>
          <header class="site">
            <p class="brand">
              {model.title}
              {model.version && (
                <span class="version">version {model.version}</span>
              )}
            </p>
            <ul>
              <li>
                <a href={documentUrl}>OpenAPI document (JSON)</a>
              </li>
              <li>
                <a href="/">Home page</a>
              </li>
            </ul>
          </header>
          <div class="shell">
            <Toc model={model} />
            <main id="main">
              <h1>{model.title} reference</h1>
              <Prose text={model.description} class="lede" />
              <Overview model={model} documentUrl={documentUrl} />
              {model.tags.map((tag) => (
                <section aria-labelledby={tag.id}>
                  <h2 id={tag.id}>{tag.name}</h2>
                  <Prose text={tag.description} class="desc" />
                  {tag.operations.map((op) => (
                    <OperationView op={op} model={model} />
                  ))}
                </section>
              ))}
              <SchemasSection model={model} />
            </main>
          </div>
          <footer class="site">
            <p>
              Generated by this instance from its{" "}
              <a href={documentUrl}>OpenAPI document</a>; nothing on this page
              comes from elsewhere.
            </p>
          </footer>
        </body>
      </html>
    </>
  );
}

/**
 * Renders the page once and returns a function that fills in a fresh nonce
 * per response: the document does not change while the app runs.
 */
export async function apiDocsRenderer(
  doc: unknown,
  documentUrl?: string,
): Promise<(nonce: string) => string> {
  const marker = `nonce-${crypto.randomUUID()}`;
  const html = String(
    await ApiDocsPage({ doc, nonce: marker, documentUrl }),
  );
  const [before, after, ...rest] = html.split(marker);
  if (after === undefined || rest.length) {
    throw new Error("the API reference has no single nonce slot");
  }
  return (nonce: string) => before + nonce + after;
}
