/**
 * The strings of the embedded lists (the `<quando-events>` element, the
 * `/embed` page) and of the page that writes their snippets (`/embed/new`),
 * complete in every public language (PUBLIC_LANGUAGES in lib/i18n.ts).
 */

/** English: the reference every other language follows key by key. */
export const en = {
  "public.embed.heading": "Upcoming events",
  "public.embed.empty": "No upcoming events.",
  "public.embed.more": "All events on {site}",
  "public.embed.loading": "Loading events…",
  "public.embed.unreachable": "The events cannot be loaded right now.",
  "public.embed.frameTitle": "Events on {site}",
  "public.embed.footerLink": "Show these events on your website",
  "public.embed.new.title": "Show events on your website",
  "public.embed.new.intro":
    "Choose what to show, then copy one of the two snippets into your page. The list keeps itself up to date when events change.",
  "public.embed.new.options": "What to show",
  "public.embed.new.tags": "Tags",
  "public.embed.new.tagsHint":
    "Separated by commas, for example: jazz, folk. Events with any of them are shown; leave empty for all events.",
  "public.embed.new.places": "Places",
  "public.embed.new.placesHint":
    "Events at any of the chosen places; choose none for all places.",
  "public.embed.new.max": "Number of events",
  "public.embed.new.maxHint": "From 1 to {max}.",
  "public.embed.new.theme": "Colours",
  "public.embed.new.theme.auto": "Like the visitor's device",
  "public.embed.new.theme.light": "Light",
  "public.embed.new.theme.dark": "Dark",
  "public.embed.new.lang": "Language",
  "public.embed.new.lang.visitor": "The visitor's language",
  "public.embed.new.submit": "Update the preview",
  "public.embed.new.preview": "Preview",
  "public.embed.new.element": "Snippet with a script (recommended)",
  "public.embed.new.elementHint":
    "It fits its height to the list and, when no language is chosen, follows the language of your page. Paste it where the list should appear.",
  "public.embed.new.iframe": "Snippet without a script (iframe)",
  "public.embed.new.iframeHint":
    "For websites that do not allow scripts: the same list in a frame of fixed height.",
  "public.embed.new.copy": "Copy",
  "public.embed.new.copied": "Copied.",
  "public.embed.bad.title": "These list options are not valid",
  "public.embed.bad.text":
    "Check “{field}”: at most {tags} tags and {places} places, and from 1 to {max} events.",
} as const;

type Messages = Record<keyof typeof en, string>;

export const it: Messages = {
  "public.embed.heading": "Prossimi eventi",
  "public.embed.empty": "Nessun evento in programma.",
  "public.embed.more": "Tutti gli eventi su {site}",
  "public.embed.loading": "Caricamento degli eventi…",
  "public.embed.unreachable": "Al momento non è possibile caricare gli eventi.",
  "public.embed.frameTitle": "Eventi su {site}",
  "public.embed.footerLink": "Mostra questi eventi sul tuo sito",
  "public.embed.new.title": "Mostra gli eventi sul tuo sito",
  "public.embed.new.intro":
    "Scegli cosa mostrare, poi copia uno dei due codici nella tua pagina. L'elenco si aggiorna da solo quando gli eventi cambiano.",
  "public.embed.new.options": "Cosa mostrare",
  "public.embed.new.tags": "Etichette",
  "public.embed.new.tagsHint":
    "Separate da virgole, per esempio: jazz, folk. Sono mostrati gli eventi con almeno una di esse; lascia vuoto per tutti gli eventi.",
  "public.embed.new.places": "Luoghi",
  "public.embed.new.placesHint":
    "Gli eventi in uno dei luoghi scelti; non sceglierne nessuno per tutti i luoghi.",
  "public.embed.new.max": "Numero di eventi",
  "public.embed.new.maxHint": "Da 1 a {max}.",
  "public.embed.new.theme": "Colori",
  "public.embed.new.theme.auto": "Come il dispositivo del visitatore",
  "public.embed.new.theme.light": "Chiari",
  "public.embed.new.theme.dark": "Scuri",
  "public.embed.new.lang": "Lingua",
  "public.embed.new.lang.visitor": "La lingua del visitatore",
  "public.embed.new.submit": "Aggiorna l'anteprima",
  "public.embed.new.preview": "Anteprima",
  "public.embed.new.element": "Codice con script (consigliato)",
  "public.embed.new.elementHint":
    "Si adatta all'altezza dell'elenco e, se non scegli una lingua, segue quella della tua pagina. Incollalo dove vuoi che compaia l'elenco.",
  "public.embed.new.iframe": "Codice senza script (iframe)",
  "public.embed.new.iframeHint":
    "Per i siti che non permettono script: lo stesso elenco in un riquadro di altezza fissa.",
  "public.embed.new.copy": "Copia",
  "public.embed.new.copied": "Copiato.",
  "public.embed.bad.title": "Queste opzioni dell'elenco non sono valide",
  "public.embed.bad.text":
    "Controlla «{field}»: al massimo {tags} etichette e {places} luoghi, e da 1 a {max} eventi.",
};

export const fr: Messages = {
  "public.embed.heading": "Prochains événements",
  "public.embed.empty": "Aucun événement à venir.",
  "public.embed.more": "Tous les événements sur {site}",
  "public.embed.loading": "Chargement des événements…",
  "public.embed.unreachable":
    "Les événements ne peuvent pas être chargés pour le moment.",
  "public.embed.frameTitle": "Événements sur {site}",
  "public.embed.footerLink": "Afficher ces événements sur votre site",
  "public.embed.new.title": "Afficher les événements sur votre site",
  "public.embed.new.intro":
    "Choisissez ce qu'il faut afficher, puis copiez l'un des deux codes dans votre page. La liste se met à jour d'elle-même quand les événements changent.",
  "public.embed.new.options": "Ce qu'il faut afficher",
  "public.embed.new.tags": "Étiquettes",
  "public.embed.new.tagsHint":
    "Séparées par des virgules, par exemple : jazz, folk. Les événements qui en portent au moins une sont affichés ; laissez vide pour tous les événements.",
  "public.embed.new.places": "Lieux",
  "public.embed.new.placesHint":
    "Les événements dans l'un des lieux choisis ; n'en choisissez aucun pour tous les lieux.",
  "public.embed.new.max": "Nombre d'événements",
  "public.embed.new.maxHint": "De 1 à {max}.",
  "public.embed.new.theme": "Couleurs",
  "public.embed.new.theme.auto": "Comme l'appareil du visiteur",
  "public.embed.new.theme.light": "Claires",
  "public.embed.new.theme.dark": "Sombres",
  "public.embed.new.lang": "Langue",
  "public.embed.new.lang.visitor": "La langue du visiteur",
  "public.embed.new.submit": "Mettre à jour l'aperçu",
  "public.embed.new.preview": "Aperçu",
  "public.embed.new.element": "Code avec script (recommandé)",
  "public.embed.new.elementHint":
    "Sa hauteur s'adapte à la liste et, si aucune langue n'est choisie, il suit celle de votre page. Collez-le là où la liste doit apparaître.",
  "public.embed.new.iframe": "Code sans script (iframe)",
  "public.embed.new.iframeHint":
    "Pour les sites qui n'autorisent pas les scripts : la même liste dans un cadre de hauteur fixe.",
  "public.embed.new.copy": "Copier",
  "public.embed.new.copied": "Copié.",
  "public.embed.bad.title": "Ces options de liste ne sont pas valides",
  "public.embed.bad.text":
    "Vérifiez « {field} » : au plus {tags} étiquettes et {places} lieux, et de 1 à {max} événements.",
};

export const es: Messages = {
  "public.embed.heading": "Próximos eventos",
  "public.embed.empty": "No hay eventos próximos.",
  "public.embed.more": "Todos los eventos en {site}",
  "public.embed.loading": "Cargando los eventos…",
  "public.embed.unreachable": "Ahora mismo no se pueden cargar los eventos.",
  "public.embed.frameTitle": "Eventos en {site}",
  "public.embed.footerLink": "Muestra estos eventos en tu sitio web",
  "public.embed.new.title": "Muestra los eventos en tu sitio web",
  "public.embed.new.intro":
    "Elige qué mostrar y copia uno de los dos códigos en tu página. La lista se actualiza sola cuando cambian los eventos.",
  "public.embed.new.options": "Qué mostrar",
  "public.embed.new.tags": "Etiquetas",
  "public.embed.new.tagsHint":
    "Separadas por comas, por ejemplo: jazz, folk. Se muestran los eventos que tengan alguna de ellas; déjalo vacío para todos los eventos.",
  "public.embed.new.places": "Lugares",
  "public.embed.new.placesHint":
    "Los eventos en cualquiera de los lugares elegidos; no elijas ninguno para todos los lugares.",
  "public.embed.new.max": "Número de eventos",
  "public.embed.new.maxHint": "De 1 a {max}.",
  "public.embed.new.theme": "Colores",
  "public.embed.new.theme.auto": "Como el dispositivo del visitante",
  "public.embed.new.theme.light": "Claros",
  "public.embed.new.theme.dark": "Oscuros",
  "public.embed.new.lang": "Idioma",
  "public.embed.new.lang.visitor": "El idioma del visitante",
  "public.embed.new.submit": "Actualizar la vista previa",
  "public.embed.new.preview": "Vista previa",
  "public.embed.new.element": "Código con script (recomendado)",
  "public.embed.new.elementHint":
    "Ajusta su altura a la lista y, si no eliges idioma, sigue el de tu página. Pégalo donde quieras que aparezca la lista.",
  "public.embed.new.iframe": "Código sin script (iframe)",
  "public.embed.new.iframeHint":
    "Para sitios que no permiten scripts: la misma lista en un marco de altura fija.",
  "public.embed.new.copy": "Copiar",
  "public.embed.new.copied": "Copiado.",
  "public.embed.bad.title": "Estas opciones de la lista no son válidas",
  "public.embed.bad.text":
    "Revisa «{field}»: como máximo {tags} etiquetas y {places} lugares, y de 1 a {max} eventos.",
};

export const de: Messages = {
  "public.embed.heading": "Kommende Veranstaltungen",
  "public.embed.empty": "Keine kommenden Veranstaltungen.",
  "public.embed.more": "Alle Veranstaltungen auf {site}",
  "public.embed.loading": "Veranstaltungen werden geladen…",
  "public.embed.unreachable":
    "Die Veranstaltungen können gerade nicht geladen werden.",
  "public.embed.frameTitle": "Veranstaltungen auf {site}",
  "public.embed.footerLink": "Diese Veranstaltungen auf Ihrer Website zeigen",
  "public.embed.new.title": "Veranstaltungen auf Ihrer Website zeigen",
  "public.embed.new.intro":
    "Wählen Sie, was gezeigt werden soll, und kopieren Sie dann einen der beiden Codes in Ihre Seite. Die Liste bleibt von selbst aktuell, wenn sich Veranstaltungen ändern.",
  "public.embed.new.options": "Was gezeigt wird",
  "public.embed.new.tags": "Schlagwörter",
  "public.embed.new.tagsHint":
    "Durch Kommas getrennt, zum Beispiel: jazz, folk. Gezeigt werden Veranstaltungen mit mindestens einem davon; leer lassen für alle Veranstaltungen.",
  "public.embed.new.places": "Orte",
  "public.embed.new.placesHint":
    "Veranstaltungen an einem der gewählten Orte; keinen wählen für alle Orte.",
  "public.embed.new.max": "Anzahl der Veranstaltungen",
  "public.embed.new.maxHint": "Von 1 bis {max}.",
  "public.embed.new.theme": "Farben",
  "public.embed.new.theme.auto": "Wie das Gerät der Besucher",
  "public.embed.new.theme.light": "Hell",
  "public.embed.new.theme.dark": "Dunkel",
  "public.embed.new.lang": "Sprache",
  "public.embed.new.lang.visitor": "Die Sprache der Besucher",
  "public.embed.new.submit": "Vorschau aktualisieren",
  "public.embed.new.preview": "Vorschau",
  "public.embed.new.element": "Code mit Skript (empfohlen)",
  "public.embed.new.elementHint":
    "Seine Höhe passt sich der Liste an, und ohne gewählte Sprache folgt er der Sprache Ihrer Seite. Fügen Sie ihn dort ein, wo die Liste erscheinen soll.",
  "public.embed.new.iframe": "Code ohne Skript (iframe)",
  "public.embed.new.iframeHint":
    "Für Websites, die keine Skripte erlauben: dieselbe Liste in einem Rahmen fester Höhe.",
  "public.embed.new.copy": "Kopieren",
  "public.embed.new.copied": "Kopiert.",
  "public.embed.bad.title": "Diese Listenoptionen sind ungültig",
  "public.embed.bad.text":
    "Prüfen Sie „{field}“: höchstens {tags} Schlagwörter und {places} Orte, und 1 bis {max} Veranstaltungen.",
};
