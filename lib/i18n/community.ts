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
};
