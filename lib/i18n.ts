/**
 * The message catalogue of the web interface: every string its pages show,
 * in English and Italian (the first Gancio communities are Italian). A page
 * is in one language: the visitor's choice (`?lang=`), else the first of
 * their `Accept-Language` that the catalogue has, else the instance's
 * locale, else English.
 */

const EN = {
  "signIn.title": "Sign in",
  "signIn.email": "E-mail",
  "signIn.password": "Password",
  "signIn.submit": "Sign in",
  "signIn.wrong": "Wrong e-mail or password, or the account is disabled.",
  "signIn.tooMany": "Too many attempts: wait a while and try again.",
  "queue.title": "Waiting for confirmation",
  "queue.signedInAs": "signed in as {name}",
  "queue.empty": "Nothing is waiting.",
  "queue.confirmed": "Confirmed.",
  "queue.submittedBy": "Submitted by {who}",
  "queue.anonymous": "anonymous",
  "queue.user": "user #{id}",
  "queue.confirm": "Confirm",
  "signOut": "Sign out",
  "submit.title": "Submit an event",
  "submit.waits": "Your event is published once an editor has confirmed it.",
  "submit.field.title": "Title",
  "submit.field.start": "Starts",
  "submit.field.end": "Ends",
  "submit.field.place_name": "Place",
  "submit.field.place_address": "Address",
  "submit.field.online_link": "Online link",
  "submit.field.tags": "Tags",
  "submit.field.description": "Description",
  "submit.hint.start": "({zone} time)",
  "submit.hint.end": "(optional)",
  "submit.hint.online_link": "(a place, an online link, or both)",
  "submit.hint.tags": "(separated by commas)",
  "submit.hint.description":
    "(blank lines between paragraphs; links become clickable)",
  "submit.send": "Submit",
  "submit.error.start": "Give the date and time it starts.",
  "submit.error.end": "Give a date and time, or nothing.",
  "submitted.title": "Thank you",
  "submitted.text":
    "“{title}” was received. It is published once an editor has confirmed it.",
  "submitted.another": "Submit another event",
  "home": "Home",
  "register.title": "Create an account",
  "register.submit": "Create the account",
  "register.passwordHint": "(at least 8 characters)",
  "register.badEmail": "Give an e-mail address.",
  "register.shortPassword": "Use at least 8 characters.",
  "register.taken": "An account with this e-mail exists: sign in instead.",
  "register.tooMany": "Too many new accounts from here: try again later.",
  "register.link": "Create an account",
  "account.title": "Your account",
  "account.password": "Change your password",
  "account.current": "Current password",
  "account.new": "New password",
  "account.change": "Change the password",
  "account.changed":
    "Password changed. Your other sessions and sign-ins have ended.",
  "account.wrongCurrent": "The current password is wrong.",
  "account.apps": "Apps you authorised",
  "account.noApps": "No app can use your account.",
  "account.scopes": "May: {scopes}",
  "account.withdraw": "Withdraw",
  "account.withdrawn": "Access withdrawn.",
} as const;

/** A string of the catalogue. */
export type MessageKey = keyof typeof EN;

const IT: Record<MessageKey, string> = {
  "signIn.title": "Accedi",
  "signIn.email": "E-mail",
  "signIn.password": "Password",
  "signIn.submit": "Accedi",
  "signIn.wrong": "E-mail o password errate, oppure l'account è disattivato.",
  "signIn.tooMany": "Troppi tentativi: aspetta un po' e riprova.",
  "queue.title": "In attesa di conferma",
  "queue.signedInAs": "accesso come {name}",
  "queue.empty": "Niente in attesa.",
  "queue.confirmed": "Confermato.",
  "queue.submittedBy": "Proposto da {who}",
  "queue.anonymous": "anonimo",
  "queue.user": "utente n. {id}",
  "queue.confirm": "Conferma",
  "signOut": "Esci",
  "submit.title": "Proponi un evento",
  "submit.waits":
    "Il tuo evento sarà pubblicato quando una persona della redazione lo avrà confermato.",
  "submit.field.title": "Titolo",
  "submit.field.start": "Inizio",
  "submit.field.end": "Fine",
  "submit.field.place_name": "Luogo",
  "submit.field.place_address": "Indirizzo",
  "submit.field.online_link": "Link online",
  "submit.field.tags": "Etichette",
  "submit.field.description": "Descrizione",
  "submit.hint.start": "(ora di {zone})",
  "submit.hint.end": "(facoltativa)",
  "submit.hint.online_link": "(un luogo, un link online, o entrambi)",
  "submit.hint.tags": "(separate da virgole)",
  "submit.hint.description":
    "(una riga vuota tra i paragrafi; i link diventano cliccabili)",
  "submit.send": "Invia",
  "submit.error.start": "Indica la data e l'ora di inizio.",
  "submit.error.end": "Indica una data e un'ora, oppure niente.",
  "submitted.title": "Grazie",
  "submitted.text":
    "“{title}” è arrivato. Sarà pubblicato quando una persona della redazione lo avrà confermato.",
  "submitted.another": "Proponi un altro evento",
  "home": "Home",
  "register.title": "Crea un account",
  "register.submit": "Crea l'account",
  "register.passwordHint": "(almeno 8 caratteri)",
  "register.badEmail": "Indica un indirizzo e-mail.",
  "register.shortPassword": "Usa almeno 8 caratteri.",
  "register.taken": "Esiste già un account con questa e-mail: accedi.",
  "register.tooMany": "Troppi nuovi account da qui: riprova più tardi.",
  "register.link": "Crea un account",
  "account.title": "Il tuo account",
  "account.password": "Cambia la password",
  "account.current": "Password attuale",
  "account.new": "Nuova password",
  "account.change": "Cambia la password",
  "account.changed":
    "Password cambiata. Le altre sessioni e gli altri accessi sono terminati.",
  "account.wrongCurrent": "La password attuale è sbagliata.",
  "account.apps": "App che hai autorizzato",
  "account.noApps": "Nessuna app può usare il tuo account.",
  "account.scopes": "Può: {scopes}",
  "account.withdraw": "Revoca",
  "account.withdrawn": "Accesso revocato.",
};

const CATALOGUE: Record<string, Record<MessageKey, string>> = {
  en: EN,
  it: IT,
};

/** The languages the web interface speaks. */
export const LANGUAGES = Object.keys(CATALOGUE);

/** Translates a key into one language, with `{name}` placeholders filled. */
export type Translate = (
  key: MessageKey,
  params?: Record<string, string | number>,
) => string;

/** The language of the catalogue a tag such as `it-IT` or `en` names, or null. */
function known(tag: string | null | undefined): string | null {
  const language = tag?.trim().toLowerCase().split(/[-_]/)[0];
  return language && Object.hasOwn(CATALOGUE, language) ? language : null;
}

/**
 * The language of a page: the explicit choice, else the first known
 * language of `Accept-Language` (by its q values), else the instance's.
 */
export function pickLanguage(
  choice: string | undefined,
  acceptLanguage: string | undefined,
  instanceLocale: string,
): string {
  const chosen = known(choice);
  if (chosen) return chosen;
  const ranked = (acceptLanguage ?? "").split(",").map((part, i) => {
    const [tag, ...params] = part.split(";");
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find(
      Boolean,
    );
    return { tag, q: q === undefined ? 1 : Number(q), i };
  }).filter((l) => l.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    const language = known(tag);
    if (language) return language;
  }
  return known(instanceLocale) ?? "en";
}

/** The translator of one language. */
export function translator(language: string): Translate {
  const messages = CATALOGUE[language] ?? EN;
  return (key, params = {}) =>
    messages[key].replace(
      /\{(\w+)\}/g,
      (whole, name) => name in params ? String(params[name]) : whole,
    );
}
