/**
 * The strings of the users and settings pages (admins), of the invitation
 * link and of the account's e-mail change (see lib/i18n.ts for how
 * catalogues combine).
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "users.title": "Users",
  "users.search.label": "Search by e-mail",
  "users.search.submit": "Search",
  "users.search.all": "Show everyone",
  "users.none": "No user matches.",
  "users.found": "Users: {count}",
  "users.you": "(you)",
  "users.role": "Role",
  "users.role.admin": "Admin",
  "users.role.editor": "Editor",
  "users.role.user": "Member",
  "users.roles.hint":
    "Members submit events; editors also confirm and edit everyone's; admins also run the instance.",
  "users.state.active": "Active",
  "users.state.inactive": "Deactivated",
  "users.since": "since {date}",
  "users.changeRole": "Change the role",
  "users.deactivate": "Deactivate",
  "users.reactivate": "Reactivate",
  "users.pages": "Pages",
  "users.roleChanged": "{email} is now: {role}.",
  "users.deactivated":
    "{email} is deactivated: their sessions, sign-ins and apps have ended.",
  "users.reactivated": "{email} can sign in again.",
  "users.lastAdmin":
    "{email} is the last active admin: make someone else admin first.",
  "users.badRole": "Choose one of the roles.",
  "users.add.title": "Add a user",
  "users.add.email": "E-mail",
  "users.add.role": "Role",
  "users.add.how": "How they get in",
  "users.add.invite": "An invitation link they open to choose a password",
  "users.add.password": "A password you set now",
  "users.add.passwordLabel": "Password",
  "users.add.passwordHint":
    "(only with “a password you set now”; at least 8 characters)",
  "users.add.submit": "Add the user",
  "users.add.badEmail": "Give an e-mail address.",
  "users.add.taken": "An account with this e-mail exists.",
  "users.add.shortPassword": "Use at least 8 characters.",
  "users.add.badHow": "Choose how they get in.",
  "users.add.created": "{email} can sign in now.",
  "users.link.title": "Invitation for {email}",
  "users.link.text":
    "Copy this link and send it to them. It is shown only this once and works until {date}.",
  "users.link.label": "Invitation link",
  "users.link.copy": "Copy the link",
  "users.link.copied": "Copied.",
  "users.invitations.title": "Open invitations",
  "users.invitations.none": "No invitation is waiting.",
  "users.invitations.until": "{role} · the link works until {date}",
  "users.invitations.expired": "{role} · the link expired on {date}",
  "users.invitations.again": "New link",
  "users.invitations.withdraw": "Withdraw",
  "users.invitations.withdrawn":
    "The invitation was withdrawn: its link no longer works.",
  "users.invite.title": "Welcome",
  "users.invite.intro":
    "You are invited to {instance} as {role}. Choose a password for {email}.",
  "users.invite.password": "Password",
  "users.invite.accept": "Create my account",
  "users.invite.unknownTitle": "This link does not work",
  "users.invite.unknown":
    "This invitation link is not valid: it may have been mistyped, withdrawn or replaced by a newer one. Ask the person who invited you for a new one.",
  "users.invite.usedTitle": "This link was used already",
  "users.invite.used":
    "The account of this invitation exists: sign in with its e-mail and password.",
  "users.invite.expiredTitle": "This link has expired",
  "users.invite.expired":
    "Invitation links work for 7 days. Ask the person who invited you for a new one.",
  "users.invite.taken":
    "An account with this e-mail exists already: sign in instead.",
  "users.invite.signIn": "Sign in",
  "users.email.title": "Change your e-mail",
  "users.email.now": "Now: {email}",
  "users.email.new": "New e-mail",
  "users.email.password": "Your password",
  "users.email.submit": "Change the e-mail",
  "users.email.ifFree":
    "If no other account uses that address, it is now your sign-in address.",
  "users.email.bad": "Give an e-mail address.",
  "users.email.wrongPassword": "The password is wrong.",
  "settings.title": "Instance settings",
  "settings.saved": "Settings saved.",
  "settings.problems":
    "Nothing was saved: some settings need another look (marked below).",
  "settings.section.instance": "The instance",
  "settings.section.events": "Events and accounts",
  "settings.section.federation": "Fediverse",
  "settings.field.instance_title": "Name",
  "settings.field.instance_description": "Description",
  "settings.field.instance_locale": "Language",
  "settings.field.instance_timezone": "Time zone",
  "settings.field.allow_registration": "Anyone may create an account",
  "settings.field.allow_anon_event":
    "Visitors may submit events without an account",
  "settings.field.allow_recurrent_event": "Recurring events may be submitted",
  "settings.field.recurrent_event_visible":
    "List each occurrence of recurring events",
  "settings.field.enable_federation": "Take part in the fediverse",
  "settings.field.enable_resources": "Keep replies from the fediverse",
  "settings.field.instance_actor": "Fediverse account",
  "settings.field.federation_series_horizon_days":
    "Days ahead a recurring event is sent",
  "settings.hint.instance_title": "(shown on every page, in feeds and apps)",
  "settings.hint.instance_description":
    "(the home page; at most 2000 characters)",
  "settings.hint.instance_locale":
    "(of the pages, for visitors whose browser asks for none we speak, and of dates in feeds)",
  "settings.hint.instance_timezone":
    "(events are entered and shown in this zone)",
  "settings.hint.allow_registration": "New accounts are members.",
  "settings.hint.allow_anon_event":
    "Their events wait in the moderation queue until an editor confirms them.",
  "settings.hint.allow_recurrent_event":
    "Weekly and monthly series, in the submission form and the API.",
  "settings.hint.recurrent_event_visible":
    "Off: listings show a series once; visitors may still ask for every date.",
  "settings.hint.enable_federation":
    "Followers on Mastodon, Gancio, Mobilizon and others receive the events (ActivityPub).",
  "settings.hint.enable_resources":
    "Replies to events become comments that moderators can hide.",
  "settings.hint.federation_series_horizon_days":
    "Followers receive the dates of a series starting within this many days (0 to 90), and always its next one; the others follow as they come into range.",
  "settings.actorFixed":
    "The instance's name on the fediverse. Followers and trusted instances know it by this address: changing it would cut them off, so it cannot be changed here.",
  "settings.save": "Save the settings",
  "settings.error.instance_title": "Give a name of at most 100 characters.",
  "settings.error.instance_description": "Use at most 2000 characters.",
  "settings.error.instance_timezone": "Choose a time zone from the list.",
  "settings.error.instance_locale": "Choose a language from the list.",
  "settings.error.federation_series_horizon_days":
    "Give a whole number of days from 0 to 90.",
} as const;

/** Italian. */
export const it: Record<keyof typeof en, string> = {
  "users.title": "Utenti",
  "users.search.label": "Cerca per e-mail",
  "users.search.submit": "Cerca",
  "users.search.all": "Mostra tutti",
  "users.none": "Nessun utente corrisponde.",
  "users.found": "Utenti: {count}",
  "users.you": "(tu)",
  "users.role": "Ruolo",
  "users.role.admin": "Amministratore",
  "users.role.editor": "Redattore",
  "users.role.user": "Membro",
  "users.roles.hint":
    "I membri propongono eventi; i redattori confermano e modificano anche quelli degli altri; gli amministratori gestiscono anche l'istanza.",
  "users.state.active": "Attivo",
  "users.state.inactive": "Disattivato",
  "users.since": "dal {date}",
  "users.changeRole": "Cambia il ruolo",
  "users.deactivate": "Disattiva",
  "users.reactivate": "Riattiva",
  "users.pages": "Pagine",
  "users.roleChanged": "{email} ora è: {role}.",
  "users.deactivated":
    "{email} è disattivato: le sue sessioni, i suoi accessi e le sue app sono terminati.",
  "users.reactivated": "{email} può accedere di nuovo.",
  "users.lastAdmin":
    "{email} è l'ultimo amministratore attivo: nomina prima un altro amministratore.",
  "users.badRole": "Scegli uno dei ruoli.",
  "users.add.title": "Aggiungi un utente",
  "users.add.email": "E-mail",
  "users.add.role": "Ruolo",
  "users.add.how": "Come accede",
  "users.add.invite": "Un link di invito da aprire per scegliere la password",
  "users.add.password": "Una password che imposti ora",
  "users.add.passwordLabel": "Password",
  "users.add.passwordHint":
    "(solo con «una password che imposti ora»; almeno 8 caratteri)",
  "users.add.submit": "Aggiungi l'utente",
  "users.add.badEmail": "Indica un indirizzo e-mail.",
  "users.add.taken": "Esiste già un account con questa e-mail.",
  "users.add.shortPassword": "Usa almeno 8 caratteri.",
  "users.add.badHow": "Scegli come accede.",
  "users.add.created": "{email} può accedere da subito.",
  "users.link.title": "Invito per {email}",
  "users.link.text":
    "Copia questo link e invialo alla persona. Viene mostrato solo questa volta e funziona fino al {date}.",
  "users.link.label": "Link di invito",
  "users.link.copy": "Copia il link",
  "users.link.copied": "Copiato.",
  "users.invitations.title": "Inviti in attesa",
  "users.invitations.none": "Nessun invito in attesa.",
  "users.invitations.until": "{role} · il link funziona fino al {date}",
  "users.invitations.expired": "{role} · il link è scaduto il {date}",
  "users.invitations.again": "Nuovo link",
  "users.invitations.withdraw": "Ritira",
  "users.invitations.withdrawn":
    "L'invito è stato ritirato: il suo link non funziona più.",
  "users.invite.title": "Benvenuto",
  "users.invite.intro":
    "Sei invitato su {instance} come {role}. Scegli una password per {email}.",
  "users.invite.password": "Password",
  "users.invite.accept": "Crea il mio account",
  "users.invite.unknownTitle": "Questo link non funziona",
  "users.invite.unknown":
    "Questo link di invito non è valido: potrebbe essere stato copiato male, ritirato o sostituito da uno più recente. Chiedine uno nuovo a chi ti ha invitato.",
  "users.invite.usedTitle": "Questo link è già stato usato",
  "users.invite.used":
    "L'account di questo invito esiste: accedi con la sua e-mail e la sua password.",
  "users.invite.expiredTitle": "Questo link è scaduto",
  "users.invite.expired":
    "I link di invito funzionano per 7 giorni. Chiedine uno nuovo a chi ti ha invitato.",
  "users.invite.taken": "Esiste già un account con questa e-mail: accedi.",
  "users.invite.signIn": "Accedi",
  "users.email.title": "Cambia la tua e-mail",
  "users.email.now": "Ora: {email}",
  "users.email.new": "Nuova e-mail",
  "users.email.password": "La tua password",
  "users.email.submit": "Cambia l'e-mail",
  "users.email.ifFree":
    "Se nessun altro account usa quell'indirizzo, ora è quello con cui accedi.",
  "users.email.bad": "Indica un indirizzo e-mail.",
  "users.email.wrongPassword": "La password è sbagliata.",
  "settings.title": "Impostazioni dell'istanza",
  "settings.saved": "Impostazioni salvate.",
  "settings.problems":
    "Non è stato salvato nulla: alcune impostazioni vanno riviste (sono segnalate qui sotto).",
  "settings.section.instance": "L'istanza",
  "settings.section.events": "Eventi e account",
  "settings.section.federation": "Fediverso",
  "settings.field.instance_title": "Nome",
  "settings.field.instance_description": "Descrizione",
  "settings.field.instance_locale": "Lingua",
  "settings.field.instance_timezone": "Fuso orario",
  "settings.field.allow_registration": "Chiunque può creare un account",
  "settings.field.allow_anon_event":
    "I visitatori possono proporre eventi senza account",
  "settings.field.allow_recurrent_event":
    "Si possono proporre eventi ricorrenti",
  "settings.field.recurrent_event_visible":
    "Elenca ogni data degli eventi ricorrenti",
  "settings.field.enable_federation": "Partecipa al fediverso",
  "settings.field.enable_resources": "Conserva le risposte dal fediverso",
  "settings.field.instance_actor": "Account nel fediverso",
  "settings.field.federation_series_horizon_days":
    "Giorni in anticipo con cui si inviano gli eventi ricorrenti",
  "settings.hint.instance_title":
    "(compare su ogni pagina, nei feed e nelle app)",
  "settings.hint.instance_description":
    "(la pagina iniziale; al massimo 2000 caratteri)",
  "settings.hint.instance_locale":
    "(delle pagine, per i visitatori il cui browser non chiede una lingua che parliamo, e delle date nei feed)",
  "settings.hint.instance_timezone":
    "(gli eventi si inseriscono e si mostrano in questo fuso)",
  "settings.hint.allow_registration": "I nuovi account sono membri.",
  "settings.hint.allow_anon_event":
    "I loro eventi attendono nella coda di moderazione finché un redattore non li conferma.",
  "settings.hint.allow_recurrent_event":
    "Serie settimanali e mensili, nel modulo di proposta e nell'API.",
  "settings.hint.recurrent_event_visible":
    "Se disattivato, gli elenchi mostrano una serie una volta sola; i visitatori possono comunque chiedere tutte le date.",
  "settings.hint.enable_federation":
    "Chi segue l'istanza da Mastodon, Gancio, Mobilizon e altri riceve gli eventi (ActivityPub).",
  "settings.hint.enable_resources":
    "Le risposte agli eventi diventano commenti che i moderatori possono nascondere.",
  "settings.hint.federation_series_horizon_days":
    "Chi segue l'istanza riceve le date di una serie che iniziano entro questi giorni (da 0 a 90), e sempre la prossima; le altre seguono man mano che si avvicinano.",
  "settings.actorFixed":
    "Il nome dell'istanza nel fediverso. Chi la segue e le istanze fidate la conoscono con questo indirizzo: cambiarlo le taglierebbe fuori, perciò qui non si può cambiare.",
  "settings.save": "Salva le impostazioni",
  "settings.error.instance_title":
    "Indica un nome di al massimo 100 caratteri.",
  "settings.error.instance_description": "Usa al massimo 2000 caratteri.",
  "settings.error.instance_timezone": "Scegli un fuso orario dall'elenco.",
  "settings.error.instance_locale": "Scegli una lingua dall'elenco.",
  "settings.error.federation_series_horizon_days":
    "Indica un numero intero di giorni da 0 a 90.",
};
