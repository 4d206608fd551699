/**
 * The strings of e-mail: the messages themselves, and the pages around them
 * (forgotten password, password links, confirmations, the admins' mail page).
 * See lib/i18n.ts for how catalogues combine.
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "mail.subject": "{instance}: {subject}",
  "mail.hello": "Hello,",
  "mail.ignore": "If you did not ask for this, ignore this message.",
  "mail.linkOnce": "The link works once, until {until}.",
  "mail.password.subject": "set your password",
  "mail.password.text":
    "Someone, hopefully you, asked for a new password for the account {email} on {instance}. Choose it here:",
  "mail.password.action": "Choose a new password",
  "mail.password.after":
    "Setting it signs you out everywhere. If you did not ask, your password stays as it is.",
  "mail.adminPassword.text":
    "An administrator of {instance} sent you a link to set the password of your account {email}:",
  "mail.register.subject": "confirm your address",
  "mail.register.text":
    "Confirm this address to finish creating your account on {instance}:",
  "mail.register.action": "Confirm and open my account",
  "mail.registerTaken.subject": "your account",
  "mail.registerTaken.text":
    "Someone tried to create an account on {instance} with this address, but it has one already. If it was you, sign in, or choose a new password here:",
  "mail.registerTaken.action": "Forgot my password",
  "mail.email.subject": "confirm your new address",
  "mail.email.text":
    "Confirm {email} as the new e-mail address of your account on {instance}:",
  "mail.email.action": "Confirm the new address",
  "mail.email.after": "Until then, your account keeps its current address.",
  "mail.invite.subject": "you are invited",
  "mail.invite.text":
    "You are invited to {instance} ({role}). Choose your password to open your account:",
  "mail.invite.action": "Accept the invitation",
  "mail.submissions.subject": "{count} event(s) waiting for moderation",
  "mail.submissions.text":
    "{count} submitted event(s) wait for a moderator on {instance}.",
  "mail.submissions.action": "Open moderation",
  "mail.submissions.footer":
    "You get this mail at most once every 15 minutes. To stop it, untick it on your account page: {url}",
  "mail.confirmed.subject": "your event is published",
  "mail.confirmed.text": "Your event “{title}” is now published on {instance}.",
  "mail.confirmed.action": "See the event",
  "mail.rejected.subject": "your event was not accepted",
  "mail.rejected.text": "Your event “{title}” was not accepted on {instance}.",
  "mail.messaged.subject": "a message about your event",
  "mail.messaged.text":
    "The moderators of {instance} wrote about your event “{title}”:",
  "mail.moderatorSays": "The moderators' message:",
  "moderation.reject.message": "Message to the author (optional)",
  "moderation.reject.messageHint":
    "Sent by e-mail with the rejection; without one, the latest message the author may see is sent.",
  "mail.yourEvents": "Your events",
  "mail.authorFooter": "You get this because you submitted the event.",
  "forgot.link": "Forgot your password?",
  "forgot.title": "Forgot your password",
  "forgot.intro":
    "Give the e-mail address of your account: we send it a link to choose a new password.",
  "forgot.submit": "Send the link",
  "forgot.sent":
    "If an account has this address, a link to choose a new password is on its way. It works for an hour.",
  "forgot.tooMany": "Too many requests: wait a while and try again.",
  "forgot.off":
    "This instance sends no e-mail: ask an administrator for a link to set your password.",
  "reset.title": "Choose a new password",
  "reset.for": "For the account {email}.",
  "reset.submit": "Set the password",
  "reset.done":
    "Your password is set, and every other session has ended. Sign in with it.",
  "reset.gone.title": "This link does not work",
  "reset.gone.unknown": "This link is not known. Ask for a new one.",
  "reset.gone.used": "This link was used already. Ask for a new one.",
  "reset.gone.expired": "This link has expired. Ask for a new one.",
  "confirm.registered": "Your address is confirmed and your account is open.",
  "confirm.email": "Your new e-mail address is confirmed: {email}.",
  "register.checkMail":
    "Almost done: open the link we sent to {email} to confirm it (it works for a day). Your account opens then.",
  "account.emailPending":
    "We sent a link to {email}: your address changes once you open it.",
  "account.notifySubmissions":
    "E-mail me when events wait for moderation (at most every 15 minutes)",
  "account.notifySaved": "Your e-mail preference is saved.",
  "account.notifyOff": "E-mail is off on this instance.",
  "account.notifySave": "Save",
  "users.mailOff":
    "E-mail is off on this instance: copy the links shown here and pass them on.",
  "users.invitationSent": "The invitation was sent to {email}.",
  "users.passwordLink": "Password link",
  "users.passwordLink.send": "E-mail a password link",
  "users.passwordLink.show": "Make a password link",
  "users.passwordLink.sent": "A link to set the password was sent to {email}.",
  "users.passwordLink.fresh":
    "Link to set the password of {email}, shown once, works once until {until}:",
  "users.add.exists":
    "An account with this e-mail exists already. Instead of an invitation, give it a link to set its password:",
  "mailAdmin.nav": "E-mail",
  "mailAdmin.title": "E-mail",
  "mailAdmin.off":
    "E-mail is off: set SMTP_URL (or MAIL_HTTP_URL) and MAIL_FROM (docs/CONFIGURATION.md). Links are shown on the pages instead.",
  "mailAdmin.on": "E-mail is on, through {transport}.",
  "mailAdmin.none": "No message yet.",
  "mailAdmin.to": "To",
  "mailAdmin.subject": "Subject",
  "mailAdmin.state": "State",
  "mailAdmin.error": "Last error",
  "mailAdmin.attempts": "Attempts",
  "mailAdmin.status.queued": "waiting",
  "mailAdmin.status.retrying": "failing, will retry",
  "mailAdmin.status.sent": "sent",
  "mailAdmin.status.failed": "given up",
  "mailAdmin.retry": "Send again",
  "mailAdmin.retried": "The message is queued again.",
} as const;

/** Italian. */
export const it: Record<keyof typeof en, string> = {
  "mail.subject": "{instance}: {subject}",
  "mail.hello": "Ciao,",
  "mail.ignore": "Se non l'hai chiesto tu, ignora questo messaggio.",
  "mail.linkOnce": "Il link funziona una volta sola, fino a {until}.",
  "mail.password.subject": "scegli la tua password",
  "mail.password.text":
    "Qualcuno, speriamo tu, ha chiesto una nuova password per l'account {email} su {instance}. Sceglila qui:",
  "mail.password.action": "Scegli una nuova password",
  "mail.password.after":
    "Impostarla chiude tutte le sessioni. Se non l'hai chiesto, la password resta com'è.",
  "mail.adminPassword.text":
    "Un amministratore di {instance} ti ha mandato un link per impostare la password del tuo account {email}:",
  "mail.register.subject": "conferma il tuo indirizzo",
  "mail.register.text":
    "Conferma questo indirizzo per completare la creazione del tuo account su {instance}:",
  "mail.register.action": "Conferma e apri il mio account",
  "mail.registerTaken.subject": "il tuo account",
  "mail.registerTaken.text":
    "Qualcuno ha provato a creare un account su {instance} con questo indirizzo, ma ne ha già uno. Se eri tu, accedi, oppure scegli una nuova password qui:",
  "mail.registerTaken.action": "Ho dimenticato la password",
  "mail.email.subject": "conferma il nuovo indirizzo",
  "mail.email.text":
    "Conferma {email} come nuovo indirizzo e-mail del tuo account su {instance}:",
  "mail.email.action": "Conferma il nuovo indirizzo",
  "mail.email.after": "Fino ad allora, l'account mantiene l'indirizzo attuale.",
  "mail.invite.subject": "sei invitato",
  "mail.invite.text":
    "Sei invitato su {instance} ({role}). Scegli la password per aprire il tuo account:",
  "mail.invite.action": "Accetta l'invito",
  "mail.submissions.subject": "{count} eventi da moderare",
  "mail.submissions.text":
    "{count} eventi proposti aspettano una persona della redazione su {instance}.",
  "mail.submissions.action": "Apri la moderazione",
  "mail.submissions.footer":
    "Ricevi questa mail al massimo una volta ogni 15 minuti. Per non riceverla più, togli la spunta nella pagina del tuo account: {url}",
  "mail.confirmed.subject": "il tuo evento è pubblicato",
  "mail.confirmed.text":
    "Il tuo evento “{title}” è ora pubblicato su {instance}.",
  "mail.confirmed.action": "Vedi l'evento",
  "mail.rejected.subject": "il tuo evento non è stato accettato",
  "mail.rejected.text":
    "Il tuo evento “{title}” non è stato accettato su {instance}.",
  "mail.messaged.subject": "un messaggio sul tuo evento",
  "mail.messaged.text":
    "La redazione di {instance} ha scritto sul tuo evento “{title}”:",
  "mail.moderatorSays": "Il messaggio della redazione:",
  "moderation.reject.message": "Messaggio per chi l'ha proposto (facoltativo)",
  "moderation.reject.messageHint":
    "Mandato per e-mail con il rifiuto; senza, si manda l'ultimo messaggio visibile a chi l'ha proposto.",
  "mail.yourEvents": "I tuoi eventi",
  "mail.authorFooter": "Ricevi questa mail perché hai proposto l'evento.",
  "forgot.link": "Password dimenticata?",
  "forgot.title": "Password dimenticata",
  "forgot.intro":
    "Indica l'indirizzo e-mail del tuo account: gli mandiamo un link per scegliere una nuova password.",
  "forgot.submit": "Manda il link",
  "forgot.sent":
    "Se un account ha questo indirizzo, un link per scegliere una nuova password sta arrivando. Funziona per un'ora.",
  "forgot.tooMany": "Troppe richieste: aspetta un po' e riprova.",
  "forgot.off":
    "Questa istanza non manda e-mail: chiedi a un amministratore un link per impostare la password.",
  "reset.title": "Scegli una nuova password",
  "reset.for": "Per l'account {email}.",
  "reset.submit": "Imposta la password",
  "reset.done":
    "La password è impostata e ogni altra sessione è chiusa. Accedi con la nuova password.",
  "reset.gone.title": "Questo link non funziona",
  "reset.gone.unknown": "Questo link non è noto. Chiedine uno nuovo.",
  "reset.gone.used": "Questo link è già stato usato. Chiedine uno nuovo.",
  "reset.gone.expired": "Questo link è scaduto. Chiedine uno nuovo.",
  "confirm.registered": "Il tuo indirizzo è confermato e l'account è aperto.",
  "confirm.email": "Il nuovo indirizzo e-mail è confermato: {email}.",
  "register.checkMail":
    "Quasi fatto: apri il link che abbiamo mandato a {email} per confermarlo (funziona per un giorno). L'account si apre allora.",
  "account.emailPending":
    "Abbiamo mandato un link a {email}: l'indirizzo cambia quando lo apri.",
  "account.notifySubmissions":
    "Mandami un'e-mail quando ci sono eventi da moderare (al massimo ogni 15 minuti)",
  "account.notifySaved": "La tua preferenza e-mail è salvata.",
  "account.notifyOff": "Le e-mail sono disattivate su questa istanza.",
  "account.notifySave": "Salva",
  "users.mailOff":
    "Le e-mail sono disattivate su questa istanza: copia i link mostrati qui e passali a chi li deve ricevere.",
  "users.invitationSent": "L'invito è stato mandato a {email}.",
  "users.passwordLink": "Link per la password",
  "users.passwordLink.send": "Manda un link per la password",
  "users.passwordLink.show": "Crea un link per la password",
  "users.passwordLink.sent":
    "Un link per impostare la password è stato mandato a {email}.",
  "users.passwordLink.fresh":
    "Link per impostare la password di {email}, mostrato una volta, funziona una volta fino a {until}:",
  "users.add.exists":
    "Esiste già un account con questa e-mail. Invece di un invito, dagli un link per impostare la password:",
  "mailAdmin.nav": "E-mail",
  "mailAdmin.title": "E-mail",
  "mailAdmin.off":
    "Le e-mail sono disattivate: imposta SMTP_URL (o MAIL_HTTP_URL) e MAIL_FROM (docs/CONFIGURATION.md). Le pagine mostrano i link al loro posto.",
  "mailAdmin.on": "Le e-mail sono attive, tramite {transport}.",
  "mailAdmin.none": "Ancora nessun messaggio.",
  "mailAdmin.to": "A",
  "mailAdmin.subject": "Oggetto",
  "mailAdmin.state": "Stato",
  "mailAdmin.error": "Ultimo errore",
  "mailAdmin.attempts": "Tentativi",
  "mailAdmin.status.queued": "in attesa",
  "mailAdmin.status.retrying": "non riuscito, riproverà",
  "mailAdmin.status.sent": "mandato",
  "mailAdmin.status.failed": "abbandonato",
  "mailAdmin.retry": "Manda di nuovo",
  "mailAdmin.retried": "Il messaggio è di nuovo in coda.",
};
