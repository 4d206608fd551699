/**
 * The about page (`/about`): the instance's description as its owners wrote
 * it, paragraphs and line breaks kept, and how to follow it.
 */
import { allEvents, TextParagraphs } from "./components.tsx";
import { type SiteInfo, SitePage } from "./shell.tsx";

/** The about page; `handle` is the instance's fediverse address, null when it does not federate. */
export function AboutView(
  props: { site: SiteInfo; nonce: string; handle: string | null },
) {
  const { site, handle } = props;
  const { t } = site;
  return (
    <SitePage
      site={site}
      nonce={props.nonce}
      meta={{
        title: t("public.about.title", { site: site.title }),
        description: site.description ||
          t("public.home.description", { site: site.title }),
        canonical: `${site.baseUrl}/about`,
        feeds: allEvents(t),
      }}
    >
      <h1>{t("public.about.title", { site: site.title })}</h1>
      {site.description
        ? <TextParagraphs text={site.description} />
        : <p class="muted">{t("public.about.noDescription")}</p>}
      {handle && <p>{t("public.about.follow", { handle })}</p>}
      <p>
        <a href="/">{t("public.about.upcoming")}</a>
      </p>
    </SitePage>
  );
}
