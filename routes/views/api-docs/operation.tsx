/** One operation on the reference page: security, parameters, request body, responses. */
import {
  entries,
  isObj,
  type Model,
  type Obj,
  type Operation,
  str,
  valueText,
} from "./model.ts";
import {
  Facts,
  Field,
  Inline,
  Prose,
  SchemaBlock,
  schemaContext,
  TypeLabel,
} from "./schema.tsx";

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

/** A security scheme in words ("Bearer token"); its name when unknown. */
export function schemeWords(name: string, model: Model): string {
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

/** One operation: its heading, prose, security, parameters, body and responses. */
export function OperationView(props: { op: Operation; model: Model }) {
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
