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
 *
 * This module is the page shell; its parts are in `api-docs/`: `model.ts`
 * (the document read), `schema.tsx` (prose and schemas), `operation.tsx`
 * (operations) and `style.ts`.
 */
import { raw } from "hono/html";
import { isObj, type Model, readModel, str } from "./api-docs/model.ts";
import { OperationView, schemeWords } from "./api-docs/operation.tsx";
import {
  Prose,
  SchemaBlock,
  schemaContext,
  SchemaLink,
} from "./api-docs/schema.tsx";
import { STYLE } from "./api-docs/style.ts";

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
