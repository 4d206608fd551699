/** The administration of OAuth clients (admins only): `/admin/clients`. */
import { type PageProps, WebPage } from "./shell.tsx";
import { Notice, Pager, type Paging } from "./components.tsx";

/** A registered OAuth client as the page lists it. */
export interface ClientItem {
  clientId: string;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string;
  /** When it was registered, in words. */
  created: string;
  users: number;
}

/** `/admin/clients`: the registered applications, each with a Delete button. */
export function ClientsView(
  props: PageProps & {
    clients: ClientItem[];
    count: number;
    paging: Paging;
    notice?: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("clients.title")} path="/admin/clients">
      <h1>{t("clients.title")}</h1>
      <Notice text={props.notice} />
      <p class="hint">{t("clients.intro", { count: props.count })}</p>
      {props.clients.length === 0
        ? <p>{t("clients.none")}</p>
        : (
          <ul class="queue">
            {props.clients.map((client, index) => (
              <li class="card">
                <h2 id={`client-${index}`}>{client.name}</h2>
                {client.website && (
                  <p>
                    <a href={client.website} rel="noopener noreferrer">
                      {client.website}
                    </a>
                  </p>
                )}
                <p class="muted">{t("clients.redirects")}</p>
                <ul class="plain">
                  {client.redirectUris.map((uri) => (
                    <li>
                      <code>{uri}</code>
                    </li>
                  ))}
                </ul>
                <p>
                  {t("clients.scopes", { scopes: client.scopes })}
                  <br />
                  {t("clients.created", { date: client.created })}
                  <br />
                  {t("clients.users", { count: client.users })}
                </p>
                <p>
                  <a
                    href={`/admin/clients/${
                      encodeURIComponent(client.clientId)
                    }/delete`}
                  >
                    {t("clients.delete", { name: client.name })}
                  </a>
                </p>
              </li>
            ))}
          </ul>
        )}
      <Pager {...props} paging={props.paging} label={t("clients.pages")} />
    </WebPage>
  );
}
