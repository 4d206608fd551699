/**
 * The strings of finding the way in: the public header's links (sign in,
 * register, submit, your pages), the refused form's page, the editors'
 * list of published events, a cancellation's confirmation and the
 * moderation card's preview. The `public.*` keys are complete in every
 * public language (PUBLIC_LANGUAGES in lib/i18n.ts), the others in the
 * interface's (INTERFACE_LANGUAGES).
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "public.account.label": "Your account",
  "public.account.signIn": "Sign in",
  "public.account.register": "Register",
  "public.account.submit": "Submit an event",
  "public.account.my": "My events",
  "public.account.admin": "Moderation",
  "public.event.edit": "Edit",
  "foreignForm.title": "This form was sent from another address",
  "foreignForm.fromOther":
    "The form came from {from}, but this instance's address (BASE_URL) is {base}: for your safety, forms are accepted only from the instance's own address.",
  "foreignForm.fromUnknown":
    "The form did not come from this instance's address (BASE_URL), {base}: for your safety, forms are accepted only from it.",
  "foreignForm.again":
    "Open the page at the instance's address and send it again:",
  "foreignForm.owner":
    "Running this instance? If people should reach it at {from}, set BASE_URL to that address and restart it (docs/CONFIGURATION.md).",
  "events.cancelAsk": "Cancel event…",
  "events.cancelSeriesAsk": "Cancel series…",
  "events.cancelDateAsk": "Cancel this date…",
  "events.cancelConfirm.title": "Cancel “{title}”?",
  "events.cancelConfirm.single":
    "The event stays listed, marked as cancelled, and followers on the fediverse are told. You can reinstate it later.",
  "events.cancelConfirm.series":
    "Every date of the series still to come stays listed, marked as cancelled, and followers on the fediverse are told. You can reinstate it later.",
  "events.cancelConfirm.occurrence":
    "This date stays listed, marked as cancelled; the other dates of the series are unchanged. You can reinstate it later.",
  "events.cancelConfirm.confirm": "Cancel the event",
  "events.cancelConfirm.keep": "Keep it as planned",
  "nav.events": "Events",
  "published.title": "Published events",
  "published.when": "Which events",
  "published.upcoming": "Upcoming",
  "published.past": "Past",
  "published.search": "Search by title, description, place or tag",
  "published.searchSubmit": "Search",
  "published.empty": "No published events here.",
  "published.noMatch": "No published event matches these words.",
  "published.tooManyWords": "Use at most 8 words.",
  "moderation.tags": "Tags:",
  "moderation.preview": "Preview its page",
  "moderation.previewNotice":
    "Preview: this event waits for confirmation, and visitors cannot see it yet.",
} as const;

type Messages = Record<keyof typeof en, string>;
type PublicMessages = Pick<
  Messages,
  Extract<keyof typeof en, `public.${string}`>
>;

/** Italian. */
export const it: Messages = {
  "public.account.label": "Il tuo account",
  "public.account.signIn": "Accedi",
  "public.account.register": "Registrati",
  "public.account.submit": "Proponi un evento",
  "public.account.my": "I miei eventi",
  "public.account.admin": "Moderazione",
  "public.event.edit": "Modifica",
  "foreignForm.title": "Questo modulo è stato inviato da un altro indirizzo",
  "foreignForm.fromOther":
    "Il modulo viene da {from}, ma l'indirizzo di questa istanza (BASE_URL) è {base}: per la tua sicurezza, i moduli sono accettati solo dall'indirizzo dell'istanza.",
  "foreignForm.fromUnknown":
    "Il modulo non viene dall'indirizzo di questa istanza (BASE_URL), {base}: per la tua sicurezza, i moduli sono accettati solo da lì.",
  "foreignForm.again":
    "Apri la pagina all'indirizzo dell'istanza e invialo di nuovo:",
  "foreignForm.owner":
    "Gestisci questa istanza? Se deve essere raggiunta da {from}, imposta BASE_URL a quell'indirizzo e riavviala (docs/CONFIGURATION.md).",
  "events.cancelAsk": "Annulla l'evento…",
  "events.cancelSeriesAsk": "Annulla la serie…",
  "events.cancelDateAsk": "Annulla questa data…",
  "events.cancelConfirm.title": "Annullare “{title}”?",
  "events.cancelConfirm.single":
    "L'evento resta in elenco, segnato come annullato, e chi lo segue nel fediverso ne è informato. Puoi ripristinarlo in seguito.",
  "events.cancelConfirm.series":
    "Ogni data futura della serie resta in elenco, segnata come annullata, e chi la segue nel fediverso ne è informato. Puoi ripristinarla in seguito.",
  "events.cancelConfirm.occurrence":
    "Questa data resta in elenco, segnata come annullata; le altre date della serie non cambiano. Puoi ripristinarla in seguito.",
  "events.cancelConfirm.confirm": "Annulla l'evento",
  "events.cancelConfirm.keep": "Mantienilo",
  "nav.events": "Eventi",
  "published.title": "Eventi pubblicati",
  "published.when": "Quali eventi",
  "published.upcoming": "Prossimi",
  "published.past": "Passati",
  "published.search": "Cerca per titolo, descrizione, luogo o tag",
  "published.searchSubmit": "Cerca",
  "published.empty": "Nessun evento pubblicato qui.",
  "published.noMatch": "Nessun evento pubblicato corrisponde a queste parole.",
  "published.tooManyWords": "Usa al massimo 8 parole.",
  "moderation.tags": "Tag:",
  "moderation.preview": "Anteprima della pagina",
  "moderation.previewNotice":
    "Anteprima: questo evento attende conferma e i visitatori non possono ancora vederlo.",
};

/** French (public pages only). */
export const fr: PublicMessages = {
  "public.account.label": "Votre compte",
  "public.account.signIn": "Se connecter",
  "public.account.register": "S'inscrire",
  "public.account.submit": "Proposer un événement",
  "public.account.my": "Mes événements",
  "public.account.admin": "Modération",
  "public.event.edit": "Modifier",
};

/** Spanish (public pages only). */
export const es: PublicMessages = {
  "public.account.label": "Tu cuenta",
  "public.account.signIn": "Iniciar sesión",
  "public.account.register": "Registrarse",
  "public.account.submit": "Proponer un evento",
  "public.account.my": "Mis eventos",
  "public.account.admin": "Moderación",
  "public.event.edit": "Editar",
};

/** German (public pages only). */
export const de: PublicMessages = {
  "public.account.label": "Dein Konto",
  "public.account.signIn": "Anmelden",
  "public.account.register": "Registrieren",
  "public.account.submit": "Veranstaltung vorschlagen",
  "public.account.my": "Meine Veranstaltungen",
  "public.account.admin": "Moderation",
  "public.event.edit": "Bearbeiten",
};
