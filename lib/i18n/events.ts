/**
 * The strings of the event pages: the event form's extras (all-day,
 * repetition, place and tag suggestions, image), `/my`, the edit page and
 * the delete confirmation (see lib/i18n.ts for how catalogues combine).
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "events.when": "When",
  "events.where": "Where",
  "events.repeats": "Repeats",
  "events.image": "Image",
  "events.field.allDay": "All day",
  "events.hint.allDay":
    "From the start of the first day to the end of the last; times are ignored.",
  "events.field.recurrence": "Repeat",
  "events.recurrence.none": "Does not repeat",
  "events.recurrence.weekly": "Every week",
  "events.recurrence.biweekly": "Every 2 weeks",
  "events.recurrence.monthlyDate": "Every month, on the same date",
  "events.recurrence.monthlyNth":
    "Every month, on the same weekday (e.g. the 2nd Tuesday)",
  "events.recurrence.monthlyLast":
    "Every month, on the last such weekday (e.g. the last Friday)",
  "events.recurrence.keep": "As it is",
  "events.field.until": "Until",
  "events.hint.until": "(optional: the last day it may happen)",
  "events.hint.place":
    "(pick a known place as you type, or name a new one and give its address)",
  "events.field.image": "Image file",
  "events.field.replaceImage": "Replace the image",
  "events.field.removeImage": "Remove the image",
  "events.hint.image":
    "(JPEG, PNG, WebP or GIF; if the form shows a problem, choose the file again)",
  "events.field.alt": "Image description",
  "events.hint.alt": "(what the image shows, for those who cannot see it)",
  "events.hint.focal":
    "Focal point: what stays in view when the image is cropped, from -1 to 1 (0, 0 is the centre). Clicking the preview sets it.",
  "events.field.focalX": "Across (left -1, right 1)",
  "events.field.focalY": "Up and down (bottom -1, top 1)",
  "events.save": "Save",
  "events.occurrenceNote":
    "This is one date of “{title}”: what you change here changes this date only.",
  "events.editSeriesInstead": "Edit the whole series instead",
  "events.edit.title": "Edit “{title}”",
  "events.edit.occurrenceTitle": "Edit one date of “{title}”",
  "events.problem.start": "Give the day and time it starts.",
  "events.problem.end": "Give a day and time, or nothing.",
  "events.problem.endBeforeStart": "The end must come after the start.",
  "events.problem.recurrence": "Choose how it repeats.",
  "events.problem.lastWeekday":
    "The first day is not the last such weekday of its month: choose another repetition or another day.",
  "events.problem.until": "Give a day, or nothing.",
  "events.problem.untilBeforeStart":
    "The last day cannot come before the first.",
  "events.problem.focal": "Give two numbers from -1 to 1.",
  "events.problem.title": "Give a title.",
  "events.problem.where": "Give a place, an online link, or both.",
  "events.problem.place": "This place does not exist.",
  "events.problem.online": "Give a web address starting with https://.",
  "events.problem.tags": "At most 20 tags, each at most 100 characters long.",
  "events.problem.image": "This image cannot be used.",
  "events.problem.imageType":
    "Only JPEG, PNG, WebP and GIF images are accepted.",
  "events.problem.imageSize": "The image is larger than {size} MB.",
  "events.problem.quota":
    "This image would take you beyond your upload quota: delete events you no longer need, or use a smaller image.",
  "events.problem.noRecurrence": "This instance does not allow series.",
  "events.my.title": "My events",
  "events.my.empty": "You have not submitted any events yet.",
  "events.my.noMore": "No more events.",
  "events.edit": "Edit",
  "events.editSeries": "Edit the series",
  "events.editDate": "Edit this date",
  "events.uncancel": "Reinstate",
  "events.delete": "Delete",
  "events.deleteSeries": "Delete the series",
  "events.cancelled": "Cancelled",
  "events.waiting": "Waiting for confirmation",
  "events.nextDates": "Next dates",
  "events.noNextDates": "No dates to come.",
  "events.pages": "Pages",
  "events.previous": "Previous page",
  "events.next": "Next page",
  "events.rule.1w": "Every week",
  "events.rule.2w": "Every 2 weeks",
  "events.rule.1m": "Every month, on the same date",
  "events.rule.1m-nth": "Every month, on the same weekday",
  "events.rule.1m-last": "Every month, on the last such weekday",
  "events.rule.keep": "Repeats ({frequency})",
  "events.rule.until": "{rule}, until {date}",
  "events.notice.saved": "Saved.",
  "events.notice.cancelled": "Marked as cancelled.",
  "events.notice.uncancelled": "No longer cancelled.",
  "events.notice.deleted": "Deleted.",
  "events.delete.title": "Delete “{title}”?",
  "events.delete.single": "The event is deleted for good.",
  "events.delete.series":
    "The series and its dates to come are deleted; past dates stay as single events.",
  "events.delete.occurrence":
    "Only this date is deleted; the rest of the series stays.",
  "events.delete.confirm": "Delete",
  "events.delete.keep": "Keep it",
  "events.refused.notYours":
    "Only its owner, an editor or an admin may change this event.",
  "events.refused.remote":
    "This event comes from another instance: only its author changes it, there.",
  "events.notFound": "There is no such event.",
} as const;

/** Italian. */
export const it: Record<keyof typeof en, string> = {
  "events.when": "Quando",
  "events.where": "Dove",
  "events.repeats": "Ripetizione",
  "events.image": "Immagine",
  "events.field.allDay": "Tutto il giorno",
  "events.hint.allDay":
    "Dall'inizio del primo giorno alla fine dell'ultimo; gli orari non contano.",
  "events.field.recurrence": "Si ripete",
  "events.recurrence.none": "Non si ripete",
  "events.recurrence.weekly": "Ogni settimana",
  "events.recurrence.biweekly": "Ogni 2 settimane",
  "events.recurrence.monthlyDate": "Ogni mese, nella stessa data",
  "events.recurrence.monthlyNth":
    "Ogni mese, nello stesso giorno della settimana (es. il 2° martedì)",
  "events.recurrence.monthlyLast":
    "Ogni mese, l'ultimo di quel giorno della settimana (es. l'ultimo venerdì)",
  "events.recurrence.keep": "Come ora",
  "events.field.until": "Fino al",
  "events.hint.until": "(facoltativo: l'ultimo giorno in cui può svolgersi)",
  "events.hint.place":
    "(scegli un luogo noto mentre scrivi, oppure indica un luogo nuovo con il suo indirizzo)",
  "events.field.image": "File dell'immagine",
  "events.field.replaceImage": "Sostituisci l'immagine",
  "events.field.removeImage": "Togli l'immagine",
  "events.hint.image":
    "(JPEG, PNG, WebP o GIF; se il modulo segnala un problema, scegli di nuovo il file)",
  "events.field.alt": "Descrizione dell'immagine",
  "events.hint.alt": "(cosa mostra l'immagine, per chi non può vederla)",
  "events.hint.focal":
    "Punto focale: ciò che resta visibile quando l'immagine viene ritagliata, da -1 a 1 (0, 0 è il centro). Un clic sull'anteprima lo imposta.",
  "events.field.focalX": "In orizzontale (sinistra -1, destra 1)",
  "events.field.focalY": "In verticale (basso -1, alto 1)",
  "events.save": "Salva",
  "events.occurrenceNote":
    "Questa è una data di “{title}”: ciò che cambi qui cambia solo questa data.",
  "events.editSeriesInstead": "Modifica invece tutta la serie",
  "events.edit.title": "Modifica “{title}”",
  "events.edit.occurrenceTitle": "Modifica una data di “{title}”",
  "events.problem.start": "Indica il giorno e l'ora di inizio.",
  "events.problem.end": "Indica un giorno e un'ora, oppure niente.",
  "events.problem.endBeforeStart": "La fine deve venire dopo l'inizio.",
  "events.problem.recurrence": "Scegli come si ripete.",
  "events.problem.lastWeekday":
    "Il primo giorno non è l'ultimo di quel giorno della settimana nel suo mese: scegli un'altra ripetizione o un altro giorno.",
  "events.problem.until": "Indica un giorno, oppure niente.",
  "events.problem.untilBeforeStart":
    "L'ultimo giorno non può venire prima del primo.",
  "events.problem.focal": "Indica due numeri da -1 a 1.",
  "events.problem.title": "Indica un titolo.",
  "events.problem.where": "Indica un luogo, un link online, o entrambi.",
  "events.problem.place": "Questo luogo non esiste.",
  "events.problem.online": "Indica un indirizzo web che inizi con https://.",
  "events.problem.tags":
    "Al massimo 20 etichette, ciascuna lunga al massimo 100 caratteri.",
  "events.problem.image": "Questa immagine non si può usare.",
  "events.problem.imageType":
    "Sono accettate solo immagini JPEG, PNG, WebP e GIF.",
  "events.problem.imageSize": "L'immagine supera {size} MB.",
  "events.problem.quota":
    "Questa immagine supererebbe il tuo spazio disponibile: elimina gli eventi che non ti servono più, o usa un'immagine più piccola.",
  "events.problem.noRecurrence": "Questa istanza non consente le serie.",
  "events.my.title": "I miei eventi",
  "events.my.empty": "Non hai ancora proposto eventi.",
  "events.my.noMore": "Non ci sono altri eventi.",
  "events.edit": "Modifica",
  "events.editSeries": "Modifica la serie",
  "events.editDate": "Modifica questa data",
  "events.uncancel": "Ripristina",
  "events.delete": "Elimina",
  "events.deleteSeries": "Elimina la serie",
  "events.cancelled": "Annullato",
  "events.waiting": "In attesa di conferma",
  "events.nextDates": "Prossime date",
  "events.noNextDates": "Nessuna data in arrivo.",
  "events.pages": "Pagine",
  "events.previous": "Pagina precedente",
  "events.next": "Pagina successiva",
  "events.rule.1w": "Ogni settimana",
  "events.rule.2w": "Ogni 2 settimane",
  "events.rule.1m": "Ogni mese, nella stessa data",
  "events.rule.1m-nth": "Ogni mese, nello stesso giorno della settimana",
  "events.rule.1m-last": "Ogni mese, l'ultimo di quel giorno della settimana",
  "events.rule.keep": "Si ripete ({frequency})",
  "events.rule.until": "{rule}, fino al {date}",
  "events.notice.saved": "Salvato.",
  "events.notice.cancelled": "Segnato come annullato.",
  "events.notice.uncancelled": "Non più annullato.",
  "events.notice.deleted": "Eliminato.",
  "events.delete.title": "Eliminare “{title}”?",
  "events.delete.single": "L'evento viene eliminato definitivamente.",
  "events.delete.series":
    "Vengono eliminate la serie e le sue date future; le date passate restano come eventi singoli.",
  "events.delete.occurrence":
    "Viene eliminata solo questa data; il resto della serie resta.",
  "events.delete.confirm": "Elimina",
  "events.delete.keep": "Non eliminare",
  "events.refused.notYours":
    "Solo chi l'ha creato, un redattore o un amministratore può modificare questo evento.",
  "events.refused.remote":
    "Questo evento viene da un'altra istanza: lo modifica solo chi l'ha scritto, là.",
  "events.notFound": "Questo evento non esiste.",
};
