/** The public site's HTML error page (404, 400). */
import { type SiteInfo, SitePage } from "./shell.tsx";
import { allEvents } from "./components.tsx";

/** An HTML error page (404, 400) with a way back. */
export function ErrorView(
  props: {
    site: SiteInfo;
    nonce: string;
    path: string;
    title: string;
    message: string;
  },
) {
  const { site } = props;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: props.title,
        description: props.message,
        canonical: `${site.baseUrl}${props.path}`,
        feeds: allEvents(site.t),
        noindex: true,
      }}
    >
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p>
        <a href="/">{site.t("public.seeUpcoming")}</a>
      </p>
    </SitePage>
  );
}
