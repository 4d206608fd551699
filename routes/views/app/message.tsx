/** The interface's pages that only say something, or ask before an action. */
import { type PageProps, WebPage } from "./shell.tsx";
import { Csrf } from "./components.tsx";

/** A page that only says something (an unknown id, a link that cannot be used), with an optional way on. */
export function MessageView(
  props: PageProps & {
    title: string;
    text: string;
    back?: { href: string; label: string };
    path?: string;
  },
) {
  return (
    <WebPage {...props} title={props.title} path={props.path}>
      <h1>{props.title}</h1>
      <p>{props.text}</p>
      {props.back && (
        <p>
          <a href={props.back.href}>{props.back.label}</a>
        </p>
      )}
    </WebPage>
  );
}

/** The page of a confirmation: what will happen, then Delete or Cancel. */
export function ConfirmView(
  props: PageProps & {
    title: string;
    text: string;
    action: string;
    csrfToken: string;
    confirm: string;
    cancel: { href: string; label: string };
    path: string;
  },
) {
  return (
    <WebPage {...props} title={props.title} path={props.path}>
      <h1 id="confirm-title">{props.title}</h1>
      <p>{props.text}</p>
      <form method="post" action={props.action}>
        <Csrf token={props.csrfToken} />
        <div class="actions">
          <button type="submit" class="danger">{props.confirm}</button>
        </div>
      </form>
      <p>
        <a href={props.cancel.href}>{props.cancel.label}</a>
      </p>
    </WebPage>
  );
}
