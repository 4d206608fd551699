/**
 * The strings of the browse pages (home, month and day calendar, past
 * events, tags and places indexes), complete in every public language. A
 * series' rule in words is the event page's (lib/i18n/public-event.ts).
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "public.browse.series.following": "Next dates:",
  "public.browse.series.all": "all dates",
  "public.browse.empty.heading": "Nothing planned yet",
  "public.browse.empty.text": "No events are planned at the moment.",
  "public.browse.empty.about":
    "{site} is a calendar of events: what is planned shows here, day by day.",
  "public.browse.empty.whereHeading": "Where to go from here",
  "public.browse.empty.anyone":
    "Anyone can propose an event: it shows here once it is confirmed.",
  "public.browse.empty.members": "Members can publish their events here.",
  "public.browse.empty.submit": "Submit an event",
  "public.browse.empty.signIn": "Sign in to publish an event",
  "public.browse.empty.register": "Create an account",
  "public.browse.empty.subscribe":
    "Subscribe to the calendar and new events will reach you as soon as they are published.",
  "public.browse.empty.past": "See past events",
  "public.browse.past.heading": "Past events",
  "public.browse.past.titlePage": "Past events, page {page}",
  "public.browse.past.description": "Past events on {site}, the latest first.",
  "public.browse.past.empty": "No event has taken place yet.",
  "public.browse.past.noMore": "There are no more past events.",
  "public.browse.calendar.title": "Calendar: {month}",
  "public.browse.calendar.description":
    "Events on {site} in {month}, day by day.",
  "public.browse.calendar.caption":
    "{month}: the days with events link to their list.",
  "public.browse.calendar.months": "Months",
  "public.browse.calendar.previous": "Previous month: {month}",
  "public.browse.calendar.next": "Next month: {month}",
  "public.browse.calendar.current": "This month",
  "public.browse.calendar.today": "today",
  "public.browse.calendar.none": "No events in {month}.",
  "public.browse.calendar.total.one": "One event in {month}.",
  "public.browse.calendar.total.many": "{count} events in {month}.",
  "public.browse.calendar.events.one": "1 event",
  "public.browse.calendar.events.many": "{count} events",
  "public.browse.calendar.badMonth.title": "No such month",
  "public.browse.calendar.badMonth.text":
    "A month is written as year and month, such as {example}, between {first} and {last}.",
  "public.browse.day.title": "Events on {day}",
  "public.browse.day.description": "Events on {site} on {day}.",
  "public.browse.day.empty": "No events on this day.",
  "public.browse.day.days": "Days",
  "public.browse.day.previous": "Previous day",
  "public.browse.day.next": "Next day",
  "public.browse.day.month": "The whole month: {month}",
  "public.browse.day.badDay.title": "No such day",
  "public.browse.day.badDay.text":
    "A day is written as year, month and day, such as {example}, and must exist, between {first} and {last}.",
  "public.browse.tags.heading": "Tags",
  "public.browse.tags.titlePage": "Tags, page {page}",
  "public.browse.tags.description":
    "The tags of upcoming events on {site}, the most used first.",
  "public.browse.tags.intro":
    "The tags of upcoming events, the most used first.",
  "public.browse.tags.empty": "No upcoming event has a tag yet.",
  "public.browse.places.heading": "Places",
  "public.browse.places.titlePage": "Places, page {page}",
  "public.browse.places.description":
    "The places of upcoming events on {site}, the busiest first.",
  "public.browse.places.intro":
    "The places of upcoming events, the busiest first.",
  "public.browse.places.empty": "No upcoming event has a place yet.",
  "public.browse.noMore": "There is nothing more to show here.",
  "public.about.title": "About {site}",
  "public.about.noDescription":
    "The people running this calendar have not described it yet.",
  "public.about.follow":
    "Follow this calendar from Mastodon or any other fediverse account: search for {handle}.",
  "public.about.link": "About this calendar",
  "public.about.upcoming": "Upcoming events",
} as const;

type Messages = Record<keyof typeof en, string>;

/** Italian. */
export const it: Messages = {
  "public.browse.series.following": "Prossime date:",
  "public.browse.series.all": "tutte le date",
  "public.browse.empty.heading": "Ancora niente in programma",
  "public.browse.empty.text": "Al momento non ci sono eventi in programma.",
  "public.browse.empty.about":
    "{site} è un calendario di eventi: quello che è in programma appare qui, giorno per giorno.",
  "public.browse.empty.whereHeading": "Da dove cominciare",
  "public.browse.empty.anyone":
    "Chiunque può proporre un evento: appare qui appena viene confermato.",
  "public.browse.empty.members":
    "I membri possono pubblicare qui i loro eventi.",
  "public.browse.empty.submit": "Proponi un evento",
  "public.browse.empty.signIn": "Accedi per pubblicare un evento",
  "public.browse.empty.register": "Crea un account",
  "public.browse.empty.subscribe":
    "Iscriviti al calendario e i nuovi eventi ti arriveranno appena pubblicati.",
  "public.browse.empty.past": "Vedi gli eventi passati",
  "public.browse.past.heading": "Eventi passati",
  "public.browse.past.titlePage": "Eventi passati, pagina {page}",
  "public.browse.past.description":
    "Gli eventi passati su {site}, dal più recente.",
  "public.browse.past.empty": "Non si è ancora svolto nessun evento.",
  "public.browse.past.noMore": "Non ci sono altri eventi passati.",
  "public.browse.calendar.title": "Calendario: {month}",
  "public.browse.calendar.description":
    "Gli eventi su {site} a {month}, giorno per giorno.",
  "public.browse.calendar.caption":
    "{month}: i giorni con eventi portano al loro elenco.",
  "public.browse.calendar.months": "Mesi",
  "public.browse.calendar.previous": "Mese precedente: {month}",
  "public.browse.calendar.next": "Mese successivo: {month}",
  "public.browse.calendar.current": "Questo mese",
  "public.browse.calendar.today": "oggi",
  "public.browse.calendar.none": "Nessun evento a {month}.",
  "public.browse.calendar.total.one": "Un evento a {month}.",
  "public.browse.calendar.total.many": "{count} eventi a {month}.",
  "public.browse.calendar.events.one": "1 evento",
  "public.browse.calendar.events.many": "{count} eventi",
  "public.browse.calendar.badMonth.title": "Mese inesistente",
  "public.browse.calendar.badMonth.text":
    "Un mese si scrive con anno e mese, come {example}, tra {first} e {last}.",
  "public.browse.day.title": "Eventi di {day}",
  "public.browse.day.description": "Gli eventi su {site} di {day}.",
  "public.browse.day.empty": "Nessun evento in questo giorno.",
  "public.browse.day.days": "Giorni",
  "public.browse.day.previous": "Giorno precedente",
  "public.browse.day.next": "Giorno successivo",
  "public.browse.day.month": "Tutto il mese: {month}",
  "public.browse.day.badDay.title": "Giorno inesistente",
  "public.browse.day.badDay.text":
    "Un giorno si scrive con anno, mese e giorno, come {example}, deve esistere ed essere tra {first} e {last}.",
  "public.browse.tags.heading": "Etichette",
  "public.browse.tags.titlePage": "Etichette, pagina {page}",
  "public.browse.tags.description":
    "Le etichette dei prossimi eventi su {site}, dalle più usate.",
  "public.browse.tags.intro":
    "Le etichette dei prossimi eventi, dalle più usate.",
  "public.browse.tags.empty": "Nessun evento in programma ha un'etichetta.",
  "public.browse.places.heading": "Luoghi",
  "public.browse.places.titlePage": "Luoghi, pagina {page}",
  "public.browse.places.description":
    "I luoghi dei prossimi eventi su {site}, dai più frequentati.",
  "public.browse.places.intro":
    "I luoghi dei prossimi eventi, dai più frequentati.",
  "public.browse.places.empty": "Nessun evento in programma ha un luogo.",
  "public.browse.noMore": "Non c'è altro da mostrare qui.",
  "public.about.title": "Informazioni su {site}",
  "public.about.noDescription":
    "Chi gestisce questo calendario non lo ha ancora descritto.",
  "public.about.follow":
    "Segui questo calendario da Mastodon o da un altro account del fediverso: cerca {handle}.",
  "public.about.link": "Informazioni su questo calendario",
  "public.about.upcoming": "Prossimi eventi",
};

/** French. */
export const fr: Messages = {
  "public.browse.series.following": "Prochaines dates :",
  "public.browse.series.all": "toutes les dates",
  "public.browse.empty.heading": "Rien de prévu pour l'instant",
  "public.browse.empty.text": "Aucun événement n'est prévu en ce moment.",
  "public.browse.empty.about":
    "{site} est un calendrier d'événements : ce qui est prévu s'affiche ici, jour par jour.",
  "public.browse.empty.whereHeading": "Par où commencer",
  "public.browse.empty.anyone":
    "Tout le monde peut proposer un événement : il s'affiche ici dès qu'il est confirmé.",
  "public.browse.empty.members":
    "Les membres peuvent publier leurs événements ici.",
  "public.browse.empty.submit": "Proposer un événement",
  "public.browse.empty.signIn": "Se connecter pour publier un événement",
  "public.browse.empty.register": "Créer un compte",
  "public.browse.empty.subscribe":
    "Abonnez-vous au calendrier : les nouveaux événements vous parviendront dès leur publication.",
  "public.browse.empty.past": "Voir les événements passés",
  "public.browse.past.heading": "Événements passés",
  "public.browse.past.titlePage": "Événements passés, page {page}",
  "public.browse.past.description":
    "Les événements passés sur {site}, du plus récent au plus ancien.",
  "public.browse.past.empty": "Aucun événement n'a encore eu lieu.",
  "public.browse.past.noMore": "Il n'y a plus d'événements passés.",
  "public.browse.calendar.title": "Calendrier : {month}",
  "public.browse.calendar.description":
    "Les événements sur {site} en {month}, jour par jour.",
  "public.browse.calendar.caption":
    "{month} : les jours avec des événements mènent à leur liste.",
  "public.browse.calendar.months": "Mois",
  "public.browse.calendar.previous": "Mois précédent : {month}",
  "public.browse.calendar.next": "Mois suivant : {month}",
  "public.browse.calendar.current": "Ce mois-ci",
  "public.browse.calendar.today": "aujourd'hui",
  "public.browse.calendar.none": "Aucun événement en {month}.",
  "public.browse.calendar.total.one": "Un événement en {month}.",
  "public.browse.calendar.total.many": "{count} événements en {month}.",
  "public.browse.calendar.events.one": "1 événement",
  "public.browse.calendar.events.many": "{count} événements",
  "public.browse.calendar.badMonth.title": "Mois inconnu",
  "public.browse.calendar.badMonth.text":
    "Un mois s'écrit avec l'année et le mois, comme {example}, entre {first} et {last}.",
  "public.browse.day.title": "Événements du {day}",
  "public.browse.day.description": "Les événements sur {site} le {day}.",
  "public.browse.day.empty": "Aucun événement ce jour-là.",
  "public.browse.day.days": "Jours",
  "public.browse.day.previous": "Jour précédent",
  "public.browse.day.next": "Jour suivant",
  "public.browse.day.month": "Tout le mois : {month}",
  "public.browse.day.badDay.title": "Jour inconnu",
  "public.browse.day.badDay.text":
    "Un jour s'écrit avec l'année, le mois et le jour, comme {example} ; il doit exister et se situer entre {first} et {last}.",
  "public.browse.tags.heading": "Étiquettes",
  "public.browse.tags.titlePage": "Étiquettes, page {page}",
  "public.browse.tags.description":
    "Les étiquettes des événements à venir sur {site}, les plus utilisées d'abord.",
  "public.browse.tags.intro":
    "Les étiquettes des événements à venir, les plus utilisées d'abord.",
  "public.browse.tags.empty": "Aucun événement à venir n'a d'étiquette.",
  "public.browse.places.heading": "Lieux",
  "public.browse.places.titlePage": "Lieux, page {page}",
  "public.browse.places.description":
    "Les lieux des événements à venir sur {site}, les plus animés d'abord.",
  "public.browse.places.intro":
    "Les lieux des événements à venir, les plus animés d'abord.",
  "public.browse.places.empty": "Aucun événement à venir n'a de lieu.",
  "public.browse.noMore": "Il n'y a rien de plus à afficher ici.",
  "public.about.title": "À propos de {site}",
  "public.about.noDescription":
    "Les personnes qui tiennent ce calendrier ne l’ont pas encore décrit.",
  "public.about.follow":
    "Suivez ce calendrier depuis Mastodon ou un autre compte du fédivers : cherchez {handle}.",
  "public.about.link": "À propos de ce calendrier",
  "public.about.upcoming": "Événements à venir",
};

/** Spanish. */
export const es: Messages = {
  "public.browse.series.following": "Próximas fechas:",
  "public.browse.series.all": "todas las fechas",
  "public.browse.empty.heading": "Todavía no hay nada previsto",
  "public.browse.empty.text": "Por ahora no hay eventos previstos.",
  "public.browse.empty.about":
    "{site} es un calendario de eventos: lo que está previsto aparece aquí, día a día.",
  "public.browse.empty.whereHeading": "Por dónde empezar",
  "public.browse.empty.anyone":
    "Cualquiera puede proponer un evento: aparece aquí en cuanto se confirma.",
  "public.browse.empty.members":
    "Los miembros pueden publicar aquí sus eventos.",
  "public.browse.empty.submit": "Proponer un evento",
  "public.browse.empty.signIn": "Inicia sesión para publicar un evento",
  "public.browse.empty.register": "Crear una cuenta",
  "public.browse.empty.subscribe":
    "Suscríbete al calendario y los nuevos eventos te llegarán en cuanto se publiquen.",
  "public.browse.empty.past": "Ver los eventos pasados",
  "public.browse.past.heading": "Eventos pasados",
  "public.browse.past.titlePage": "Eventos pasados, página {page}",
  "public.browse.past.description":
    "Los eventos pasados en {site}, del más reciente al más antiguo.",
  "public.browse.past.empty": "Todavía no se ha celebrado ningún evento.",
  "public.browse.past.noMore": "No hay más eventos pasados.",
  "public.browse.calendar.title": "Calendario: {month}",
  "public.browse.calendar.description":
    "Los eventos en {site} en {month}, día a día.",
  "public.browse.calendar.caption":
    "{month}: los días con eventos llevan a su lista.",
  "public.browse.calendar.months": "Meses",
  "public.browse.calendar.previous": "Mes anterior: {month}",
  "public.browse.calendar.next": "Mes siguiente: {month}",
  "public.browse.calendar.current": "Este mes",
  "public.browse.calendar.today": "hoy",
  "public.browse.calendar.none": "No hay eventos en {month}.",
  "public.browse.calendar.total.one": "Un evento en {month}.",
  "public.browse.calendar.total.many": "{count} eventos en {month}.",
  "public.browse.calendar.events.one": "1 evento",
  "public.browse.calendar.events.many": "{count} eventos",
  "public.browse.calendar.badMonth.title": "Ese mes no existe",
  "public.browse.calendar.badMonth.text":
    "Un mes se escribe con el año y el mes, como {example}, entre {first} y {last}.",
  "public.browse.day.title": "Eventos del {day}",
  "public.browse.day.description": "Los eventos en {site} el {day}.",
  "public.browse.day.empty": "No hay eventos este día.",
  "public.browse.day.days": "Días",
  "public.browse.day.previous": "Día anterior",
  "public.browse.day.next": "Día siguiente",
  "public.browse.day.month": "Todo el mes: {month}",
  "public.browse.day.badDay.title": "Ese día no existe",
  "public.browse.day.badDay.text":
    "Un día se escribe con el año, el mes y el día, como {example}; debe existir y estar entre {first} y {last}.",
  "public.browse.tags.heading": "Etiquetas",
  "public.browse.tags.titlePage": "Etiquetas, página {page}",
  "public.browse.tags.description":
    "Las etiquetas de los próximos eventos en {site}, las más usadas primero.",
  "public.browse.tags.intro":
    "Las etiquetas de los próximos eventos, las más usadas primero.",
  "public.browse.tags.empty": "Ningún evento próximo tiene etiquetas.",
  "public.browse.places.heading": "Lugares",
  "public.browse.places.titlePage": "Lugares, página {page}",
  "public.browse.places.description":
    "Los lugares de los próximos eventos en {site}, los más activos primero.",
  "public.browse.places.intro":
    "Los lugares de los próximos eventos, los más activos primero.",
  "public.browse.places.empty": "Ningún evento próximo tiene lugar asignado.",
  "public.browse.noMore": "No hay nada más que mostrar aquí.",
  "public.about.title": "Acerca de {site}",
  "public.about.noDescription":
    "Quienes llevan este calendario aún no lo han descrito.",
  "public.about.follow":
    "Sigue este calendario desde Mastodon o cualquier otra cuenta del fediverso: busca {handle}.",
  "public.about.link": "Acerca de este calendario",
  "public.about.upcoming": "Próximos eventos",
};

/** German. */
export const de: Messages = {
  "public.browse.series.following": "Nächste Termine:",
  "public.browse.series.all": "alle Termine",
  "public.browse.empty.heading": "Noch nichts geplant",
  "public.browse.empty.text": "Im Moment sind keine Veranstaltungen geplant.",
  "public.browse.empty.about":
    "{site} ist ein Veranstaltungskalender: Was geplant ist, erscheint hier, Tag für Tag.",
  "public.browse.empty.whereHeading": "Wie es weitergeht",
  "public.browse.empty.anyone":
    "Alle können eine Veranstaltung vorschlagen: Sie erscheint hier, sobald sie bestätigt ist.",
  "public.browse.empty.members":
    "Mitglieder können ihre Veranstaltungen hier veröffentlichen.",
  "public.browse.empty.submit": "Veranstaltung vorschlagen",
  "public.browse.empty.signIn":
    "Anmelden, um eine Veranstaltung zu veröffentlichen",
  "public.browse.empty.register": "Konto erstellen",
  "public.browse.empty.subscribe":
    "Abonnieren Sie den Kalender, dann erreichen Sie neue Veranstaltungen, sobald sie veröffentlicht sind.",
  "public.browse.empty.past": "Vergangene Veranstaltungen ansehen",
  "public.browse.past.heading": "Vergangene Veranstaltungen",
  "public.browse.past.titlePage": "Vergangene Veranstaltungen, Seite {page}",
  "public.browse.past.description":
    "Vergangene Veranstaltungen auf {site}, die jüngsten zuerst.",
  "public.browse.past.empty":
    "Bisher hat noch keine Veranstaltung stattgefunden.",
  "public.browse.past.noMore":
    "Es gibt keine weiteren vergangenen Veranstaltungen.",
  "public.browse.calendar.title": "Kalender: {month}",
  "public.browse.calendar.description":
    "Veranstaltungen auf {site} im {month}, Tag für Tag.",
  "public.browse.calendar.caption":
    "{month}: Tage mit Veranstaltungen führen zu ihrer Liste.",
  "public.browse.calendar.months": "Monate",
  "public.browse.calendar.previous": "Voriger Monat: {month}",
  "public.browse.calendar.next": "Nächster Monat: {month}",
  "public.browse.calendar.current": "Dieser Monat",
  "public.browse.calendar.today": "heute",
  "public.browse.calendar.none": "Keine Veranstaltungen im {month}.",
  "public.browse.calendar.total.one": "Eine Veranstaltung im {month}.",
  "public.browse.calendar.total.many": "{count} Veranstaltungen im {month}.",
  "public.browse.calendar.events.one": "1 Veranstaltung",
  "public.browse.calendar.events.many": "{count} Veranstaltungen",
  "public.browse.calendar.badMonth.title": "Diesen Monat gibt es nicht",
  "public.browse.calendar.badMonth.text":
    "Ein Monat wird mit Jahr und Monat geschrieben, etwa {example}, zwischen {first} und {last}.",
  "public.browse.day.title": "Veranstaltungen am {day}",
  "public.browse.day.description": "Veranstaltungen auf {site} am {day}.",
  "public.browse.day.empty": "An diesem Tag gibt es keine Veranstaltungen.",
  "public.browse.day.days": "Tage",
  "public.browse.day.previous": "Voriger Tag",
  "public.browse.day.next": "Nächster Tag",
  "public.browse.day.month": "Der ganze Monat: {month}",
  "public.browse.day.badDay.title": "Diesen Tag gibt es nicht",
  "public.browse.day.badDay.text":
    "Ein Tag wird mit Jahr, Monat und Tag geschrieben, etwa {example}; er muss existieren und zwischen {first} und {last} liegen.",
  "public.browse.tags.heading": "Schlagwörter",
  "public.browse.tags.titlePage": "Schlagwörter, Seite {page}",
  "public.browse.tags.description":
    "Die Schlagwörter kommender Veranstaltungen auf {site}, die häufigsten zuerst.",
  "public.browse.tags.intro":
    "Die Schlagwörter kommender Veranstaltungen, die häufigsten zuerst.",
  "public.browse.tags.empty":
    "Keine kommende Veranstaltung hat ein Schlagwort.",
  "public.browse.places.heading": "Orte",
  "public.browse.places.titlePage": "Orte, Seite {page}",
  "public.browse.places.description":
    "Die Orte kommender Veranstaltungen auf {site}, die belebtesten zuerst.",
  "public.browse.places.intro":
    "Die Orte kommender Veranstaltungen, die belebtesten zuerst.",
  "public.browse.places.empty": "Keine kommende Veranstaltung hat einen Ort.",
  "public.browse.noMore": "Hier gibt es nichts weiter zu sehen.",
  "public.about.title": "Über {site}",
  "public.about.noDescription":
    "Die Betreiber dieses Kalenders haben ihn noch nicht beschrieben.",
  "public.about.follow":
    "Folgen Sie diesem Kalender von Mastodon oder einem anderen Fediverse-Konto aus: suchen Sie nach {handle}.",
  "public.about.link": "Über diesen Kalender",
  "public.about.upcoming": "Kommende Veranstaltungen",
};
