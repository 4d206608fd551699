/** The strings of the calendar subscriptions page (/admin/sources). */

/** English: the reference every other language follows key by key. */
export const en = {
  "nav.sources": "Calendars",
  "sources.title": "Calendar subscriptions",
  "sources.intro":
    "Events of these calendars (ICS or webcal feeds) are brought in every hour and kept in step: changed ones are updated, and upcoming ones a calendar stops listing are marked cancelled.",
  "sources.empty": "No calendar yet.",
  "sources.pages": "Pages of calendars",
  "sources.add": "Add a calendar",
  "sources.field.url": "Calendar address",
  "sources.hint.url": "(https:// or webcal:// link to an .ics feed)",
  "sources.field.name": "Name",
  "sources.hint.name": "(optional, for this page)",
  "sources.field.tags": "Tags for its events",
  "sources.hint.tags": "(separated by commas)",
  "sources.field.place": "Place for events without one",
  "sources.place.none": "None: skip such events",
  "sources.field.confirm": "Its new events wait for confirmation",
  "sources.submit": "Add and sync now",
  "sources.sync": "Sync now",
  "sources.delete": "Remove",
  "sources.delete.title": "Remove this calendar?",
  "sources.delete.text":
    "“{name}” will no longer be synced. The events it brought stay, as ordinary events.",
  "sources.delete.submit": "Remove the calendar",
  "sources.cancel": "Cancel",
  "sources.never": "Not synced yet.",
  "sources.lastSync": "Last sync: {when}",
  "sources.counts":
    "{created} new, {updated} changed, {cancelled} cancelled, {unchanged} unchanged, {skipped} skipped",
  "sources.problems": "Problems",
  "sources.added": "Calendar added.",
  "sources.synced": "Synced: {counts}.",
  "sources.notModified": "The calendar has not changed since the last sync.",
  "sources.failed": "The sync failed: see the problems under the calendar.",
  "sources.busy": "A sync of this calendar is running: try again in a moment.",
  "sources.removed": "Calendar removed.",
  "sources.notFound": "There is no such calendar.",
  "sources.by": "Events created as {email}",
  "sources.waits": "New events wait for confirmation",
  "sources.failing":
    "Failed syncs in a row: {failures}. Next automatic try: {when}.",
  "sources.paused":
    "Paused: only synced by hand until it is resumed (failed syncs in a row: {failures}).",
  "sources.pausedByHand": "Paused: only synced by hand until it is resumed.",
  "sources.resume": "Resume",
  "sources.resumed": "Calendar resumed: it is synced every hour again.",
} as const;

/** Italian. */
export const it: Record<keyof typeof en, string> = {
  "nav.sources": "Calendari",
  "sources.title": "Calendari sottoscritti",
  "sources.intro":
    "Gli eventi di questi calendari (feed ICS o webcal) vengono importati ogni ora e tenuti allineati: quelli modificati vengono aggiornati, e quelli futuri che un calendario non elenca più vengono segnati come annullati.",
  "sources.empty": "Ancora nessun calendario.",
  "sources.pages": "Pagine dei calendari",
  "sources.add": "Aggiungi un calendario",
  "sources.field.url": "Indirizzo del calendario",
  "sources.hint.url": "(link https:// o webcal:// a un feed .ics)",
  "sources.field.name": "Nome",
  "sources.hint.name": "(facoltativo, per questa pagina)",
  "sources.field.tags": "Etichette per i suoi eventi",
  "sources.hint.tags": "(separate da virgole)",
  "sources.field.place": "Luogo per gli eventi che non ne hanno",
  "sources.place.none": "Nessuno: salta questi eventi",
  "sources.field.confirm": "I suoi nuovi eventi attendono conferma",
  "sources.submit": "Aggiungi e sincronizza ora",
  "sources.sync": "Sincronizza ora",
  "sources.delete": "Rimuovi",
  "sources.delete.title": "Rimuovere questo calendario?",
  "sources.delete.text":
    "“{name}” non sarà più sincronizzato. Gli eventi che ha portato restano, come eventi normali.",
  "sources.delete.submit": "Rimuovi il calendario",
  "sources.cancel": "Annulla",
  "sources.never": "Non ancora sincronizzato.",
  "sources.lastSync": "Ultima sincronizzazione: {when}",
  "sources.counts":
    "{created} nuovi, {updated} modificati, {cancelled} annullati, {unchanged} invariati, {skipped} saltati",
  "sources.problems": "Problemi",
  "sources.added": "Calendario aggiunto.",
  "sources.synced": "Sincronizzato: {counts}.",
  "sources.notModified":
    "Il calendario non è cambiato dall'ultima sincronizzazione.",
  "sources.failed":
    "La sincronizzazione non è riuscita: vedi i problemi sotto il calendario.",
  "sources.busy":
    "È in corso una sincronizzazione di questo calendario: riprova tra poco.",
  "sources.removed": "Calendario rimosso.",
  "sources.notFound": "Questo calendario non esiste.",
  "sources.by": "Eventi creati come {email}",
  "sources.waits": "I nuovi eventi attendono conferma",
  "sources.failing":
    "Sincronizzazioni non riuscite di seguito: {failures}. Prossimo tentativo automatico: {when}.",
  "sources.paused":
    "In pausa: sincronizzato solo a mano finché non viene ripreso (sincronizzazioni non riuscite di seguito: {failures}).",
  "sources.pausedByHand":
    "In pausa: sincronizzato solo a mano finché non viene ripreso.",
  "sources.resume": "Riprendi",
  "sources.resumed":
    "Calendario ripreso: viene di nuovo sincronizzato ogni ora.",
};
