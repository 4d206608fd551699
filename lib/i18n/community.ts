/** The strings of running a community: places (/admin/places), deleting users, approvals and reports. */

/** English: the reference every other language follows key by key. */
export const en = {
  "nav.places": "Places",
  "places.title": "Places",
  "places.intro":
    "Every place events name: correct a name, address or map position, or merge duplicates into one.",
  "places.search": "Search places",
  "places.searchButton": "Search",
  "places.count": "{count} places",
  "places.none": "No place matches.",
  "places.events": "{count} events",
  "places.edit": "Edit {name}",
  "places.pages": "Pages of places",
  "places.editTitle": "Edit place",
  "places.field.name": "Name",
  "places.field.address": "Address",
  "places.field.latitude": "Latitude",
  "places.field.longitude": "Longitude",
  "places.hint.coordinates":
    "Decimal degrees, for the map link (both or neither).",
  "places.save": "Save the place",
  "places.saved": "Place saved. Its events show the change.",
  "places.badName": "A place needs a name (at most 200 characters).",
  "places.badAddress": "An address has at most 300 characters.",
  "places.badLatitude": "A latitude is a number from -90 to 90.",
  "places.badLongitude": "A longitude is a number from -180 to 180.",
  "places.bothCoordinates": "Give both coordinates, or neither.",
  "places.taken":
    "Another place has this name and address: merge them instead.",
  "places.notFound": "There is no such place.",
  "places.back": "All places",
  "places.mergeLink": "Merge duplicates into this place",
  "places.mergeTitle": "Merge into “{name}”",
  "places.mergeIntro":
    "The places you check are deleted; their events, collection filters and calendar subscriptions move to “{name}”. This cannot be undone.",
  "places.mergeSearch": "Find duplicates",
  "places.mergeCandidates": "Places to merge into this one",
  "places.mergeNone": "No other place matches.",
  "places.mergeButton": "Merge the checked places",
  "places.mergeNothing": "Check at least one place to merge.",
  "places.merged": "{count} places merged into this one.",
  "places.cancel": "Cancel",
  "userDelete.link": "Delete this account…",
  "userDelete.title": "Delete {email}?",
  "userDelete.intro":
    "The account goes at once, with its sessions, app authorisations and tokens. It owns {count} events.",
  "userDelete.events": "Their events",
  "userDelete.keep": "Keep them, without an owner",
  "userDelete.reassign": "Give them to another account (below)",
  "userDelete.remove": "Delete them too (followers are told)",
  "userDelete.reassignEmail": "E-mail of the account that gets them",
  "userDelete.reassignHint":
    "Only when giving the events away: an active account, which also gets the calendar subscriptions.",
  "userDelete.badReassign":
    "There is no other active account with this e-mail.",
  "userDelete.badFate": "Choose what becomes of the events.",
  "userDelete.lastAdmin":
    "{email} is the last active admin and cannot be deleted.",
  "userDelete.confirm": "Delete the account",
  "userDelete.cancel": "Cancel",
  "userDelete.done": "The account was deleted.",
} as const;

/** Italian. */
export const it: Record<keyof typeof en, string> = {
  "nav.places": "Luoghi",
  "places.title": "Luoghi",
  "places.intro":
    "Tutti i luoghi nominati dagli eventi: correggi un nome, un indirizzo o la posizione sulla mappa, o unisci i doppioni in uno solo.",
  "places.search": "Cerca luoghi",
  "places.searchButton": "Cerca",
  "places.count": "{count} luoghi",
  "places.none": "Nessun luogo corrisponde.",
  "places.events": "{count} eventi",
  "places.edit": "Modifica {name}",
  "places.pages": "Pagine dei luoghi",
  "places.editTitle": "Modifica luogo",
  "places.field.name": "Nome",
  "places.field.address": "Indirizzo",
  "places.field.latitude": "Latitudine",
  "places.field.longitude": "Longitudine",
  "places.hint.coordinates":
    "Gradi decimali, per il link alla mappa (entrambe o nessuna).",
  "places.save": "Salva il luogo",
  "places.saved": "Luogo salvato. I suoi eventi mostrano la modifica.",
  "places.badName":
    "Un luogo ha bisogno di un nome (al massimo 200 caratteri).",
  "places.badAddress": "Un indirizzo ha al massimo 300 caratteri.",
  "places.badLatitude": "La latitudine è un numero da -90 a 90.",
  "places.badLongitude": "La longitudine è un numero da -180 a 180.",
  "places.bothCoordinates": "Indica entrambe le coordinate, o nessuna.",
  "places.taken":
    "Un altro luogo ha questo nome e indirizzo: uniscili piuttosto.",
  "places.notFound": "Questo luogo non esiste.",
  "places.back": "Tutti i luoghi",
  "places.mergeLink": "Unisci i doppioni in questo luogo",
  "places.mergeTitle": "Unisci in “{name}”",
  "places.mergeIntro":
    "I luoghi che selezioni vengono eliminati; i loro eventi, i filtri delle raccolte e i calendari sottoscritti passano a “{name}”. Non si può annullare.",
  "places.mergeSearch": "Trova i doppioni",
  "places.mergeCandidates": "Luoghi da unire in questo",
  "places.mergeNone": "Nessun altro luogo corrisponde.",
  "places.mergeButton": "Unisci i luoghi selezionati",
  "places.mergeNothing": "Seleziona almeno un luogo da unire.",
  "places.merged": "{count} luoghi uniti in questo.",
  "places.cancel": "Annulla",
  "userDelete.link": "Elimina questo account…",
  "userDelete.title": "Eliminare {email}?",
  "userDelete.intro":
    "L'account viene eliminato subito, con le sue sessioni, autorizzazioni delle app e token. Possiede {count} eventi.",
  "userDelete.events": "I suoi eventi",
  "userDelete.keep": "Tienili, senza proprietario",
  "userDelete.reassign": "Assegnali a un altro account (sotto)",
  "userDelete.remove": "Eliminali anche (chi segue viene avvisato)",
  "userDelete.reassignEmail": "E-mail dell'account che li riceve",
  "userDelete.reassignHint":
    "Solo se assegni gli eventi: un account attivo, che riceve anche i calendari sottoscritti.",
  "userDelete.badReassign":
    "Non c'è un altro account attivo con questa e-mail.",
  "userDelete.badFate": "Scegli cosa fare degli eventi.",
  "userDelete.lastAdmin":
    "{email} è l'ultimo amministratore attivo e non può essere eliminato.",
  "userDelete.confirm": "Elimina l'account",
  "userDelete.cancel": "Annulla",
  "userDelete.done": "L'account è stato eliminato.",
};
