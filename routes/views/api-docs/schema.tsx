/** The reference page's prose and JSON schemas: types, limits, properties, `$ref`s. */
import type { Child } from "hono/jsx";
import {
  entries,
  isObj,
  MAX_DEPTH,
  type Model,
  NODE_BUDGET,
  type Obj,
  str,
  valueText,
} from "./model.ts";

// --- prose ---

/** Text with `code spans`, as text and `<code>` (never markup from the document). */
export function Inline(props: { text: string }) {
  const parts = props.text.split(/`([^`\n]+)`/);
  return (
    <>
      {parts.map((part, i) => i % 2 ? <code>{part}</code> : part)}
    </>
  );
}

/** Paragraphs split on blank lines. */
export function Prose(props: { text?: string; class?: string }) {
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

/** A link to a component schema's entry; the ref as code when it leads nowhere. */
export function SchemaLink(props: { model: Model; ref: string }) {
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
export function TypeLabel(
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
export function Facts(
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
export function Field(
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
export function SchemaBlock(
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

/** A fresh context: spelled out (`expand`) or linked, with a full node budget. */
export function schemaContext(model: Model, expand: boolean): SchemaContext {
  return {
    model,
    expand,
    trail: [],
    depth: 0,
    budget: { nodes: NODE_BUDGET, noted: false },
  };
}
