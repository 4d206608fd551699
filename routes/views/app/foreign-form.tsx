/** The page of a form refused because it was posted from another address than the instance's. */
import { type PageProps, WebPage } from "./shell.tsx";

/**
 * Says where the form came from, the instance's address (BASE_URL) and a
 * link to the page at that address; and, for whoever runs the instance,
 * how to make the other address the instance's.
 */
export function ForeignFormView(
  props: PageProps & {
    /** The origin the form was posted from, when the browser said. */
    from: string | null;
    /** BASE_URL's origin. */
    baseUrl: string;
    /** The page to send the form again from, at BASE_URL. */
    again: string;
  },
) {
  const { t } = props;
  return (
    <WebPage {...props} title={t("foreignForm.title")}>
      <h1>{t("foreignForm.title")}</h1>
      <p>
        {props.from
          ? t("foreignForm.fromOther", {
            from: props.from,
            base: props.baseUrl,
          })
          : t("foreignForm.fromUnknown", { base: props.baseUrl })}
      </p>
      <p>
        {t("foreignForm.again")} <a href={props.again}>{props.again}</a>
      </p>
      {props.from && (
        <p class="muted">
          {t("foreignForm.owner", { from: props.from })}
        </p>
      )}
    </WebPage>
  );
}
