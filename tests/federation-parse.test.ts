import assert from "node:assert/strict";
import {
  parseLocations,
  parseRemoteEvent,
  parseRemoteNote,
  type RemoteEvent,
  type RemotePlace,
} from "../lib/federation/parse.ts";

const FIXTURES = new URL("../../shared/fixtures/activitypub/", import.meta.url);

async function fixture(path: string): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(new URL(path, FIXTURES)));
}

/** Unix seconds of an explicit ISO string. */
function unix(iso: string): number {
  const ms = Date.parse(iso);
  assert.ok(Number.isFinite(ms), `bad date ${iso}`);
  return ms / 1000;
}

function expectOk<T>(
  r: { ok: true; value: T } | { ok: false; reason: string },
): T {
  if (!r.ok) assert.fail(`expected ok, got: ${r.reason}`);
  return r.value;
}

function expectFail(
  r: { ok: true; value: unknown } | { ok: false; reason: string },
  pattern?: RegExp,
): void {
  assert.equal(r.ok, false, `expected a failure, got ${JSON.stringify(r)}`);
  if (!r.ok && pattern) assert.match(r.reason, pattern);
}

/** A minimal valid event, with overrides. */
function event(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "https://remote.example/federation/m/1",
    type: "Event",
    name: "Concert",
    startTime: "2026-07-14T20:00:00Z",
    ...fields,
  };
}

function parseEvent(fields: Record<string, unknown> = {}): RemoteEvent {
  return expectOk(parseRemoteEvent(event(fields)));
}

// --- Gancio locations: one test per file, each with its expectation ---

type LocationExpectation =
  | { fails: true }
  | { place: RemotePlace | null; online: string[] };

const place = (fields: Partial<RemotePlace>): RemotePlace => ({
  name: "",
  address: "",
  postal_address: null,
  latitude: null,
  longitude: null,
  ap_id: null,
  ...fields,
});

const LOCATION_EXPECTATIONS: Record<string, LocationExpectation> = {
  "bad-location-without-a-name.json": { fails: true },
  "multiple-mixed-locations.json": {
    place: place({
      name: "Location with a name",
      ap_id: "http://localhost:13120/federation/p/4",
    }),
    online: [
      "https://virtual.location.org",
      "https://a.second.fallback.virtual.location.org",
    ],
  },
  "physical-location-no-address.json": {
    place: place({
      name: "Location with a name",
      ap_id: "http://localhost:13120/federation/p/1",
    }),
    online: [],
  },
  "physical-location-with-postal-address.json": {
    place: place({
      name: "Location with a postal address",
      address: "15 Fediverse Street, 8010 Fediverse Town, Steiermark, Austria",
      postal_address: {
        streetAddress: "15 Fediverse Street",
        postalCode: "8010",
        addressLocality: "Fediverse Town",
        addressRegion: "Steiermark",
        addressCountry: "Austria",
      },
      ap_id: "http://localhost:13120/federation/p/2",
    }),
    online: [],
  },
  "physical-location-with-simple-string-address.json": {
    place: place({
      name: "Location with a simple string address",
      address: "Simple string address",
      ap_id: "http://localhost:13120/federation/p/3",
    }),
    online: [],
  },
  "physical-location-without-id.json": {
    place: place({ name: "Location without id" }),
    online: [],
  },
  "virtual-location.json": {
    place: null,
    online: ["https://virtual.location.org"],
  },
};

const locationDir = new URL("gancio-locations/", FIXTURES);
const locationFiles = [...Deno.readDirSync(locationDir)]
  .filter((e) => e.isFile && e.name.endsWith(".json"))
  .map((e) => e.name)
  .sort();

Deno.test("every Gancio location fixture has an expectation, and back", () => {
  assert.deepEqual(locationFiles, Object.keys(LOCATION_EXPECTATIONS).sort());
});

for (const file of locationFiles) {
  Deno.test(`Gancio location fixture ${file}`, async () => {
    const expected = LOCATION_EXPECTATIONS[file];
    assert.ok(expected, `no expectation for ${file}`);
    const location = await fixture(`gancio-locations/${file}`);
    const parsed = parseLocations(location);
    // The same location carried by an event, as its only location.
    const inEvent = parseRemoteEvent(event({ location }));
    if ("fails" in expected) {
      expectFail(parsed, /name/);
      expectFail(inEvent, /location/);
      return;
    }
    assert.deepEqual(expectOk(parsed), {
      place: expected.place,
      online_locations: expected.online,
    });
    const ev = expectOk(inEvent);
    assert.deepEqual(ev.place, expected.place);
    assert.deepEqual(ev.online_locations, expected.online);
  });
}

Deno.test("locations: liberal shapes", () => {
  // A nameless entry beside a good one is dropped, not fatal.
  const mixed = expectOk(parseLocations([
    { type: "Place" },
    { type: "Place", name: "Second" },
  ]));
  assert.equal(mixed.place?.name, "Second");

  // A VirtualLocation used directly as the location: url, else its id.
  assert.deepEqual(
    expectOk(parseLocations({
      type: "VirtualLocation",
      url: "https://meet.example/room",
    })).online_locations,
    ["https://meet.example/room"],
  );
  assert.deepEqual(
    expectOk(parseLocations({
      type: "VirtualLocation",
      id: "https://meet.example/by-id",
    })).online_locations,
    ["https://meet.example/by-id"],
  );
  // Without any http(s) URL it is invalid.
  expectFail(
    parseLocations({ type: "VirtualLocation", url: "javascript:alert(1)" }),
  );

  // Duplicate virtual URLs are kept once, in order.
  const dup = expectOk(parseLocations([
    { type: "VirtualLocation", url: "https://b.example" },
    { type: "VirtualLocation", url: "https://a.example" },
    { type: "VirtualLocation", url: "https://b.example" },
  ]));
  assert.deepEqual(dup.online_locations, [
    "https://b.example",
    "https://a.example",
  ]);

  // Coordinates: numbers or numeric strings in range; half a pair is dropped.
  const coords = expectOk(parseLocations({
    type: "Place",
    name: "Here",
    latitude: "41.89",
    longitude: 12.49,
  }));
  assert.equal(coords.place?.latitude, 41.89);
  assert.equal(coords.place?.longitude, 12.49);
  const outOfRange = expectOk(parseLocations({
    type: "Place",
    name: "Here",
    latitude: 91,
    longitude: 12,
  }));
  assert.equal(outOfRange.place?.latitude, null);
  assert.equal(outOfRange.place?.longitude, null);

  // Absent, null, empty: no location, and that is fine.
  for (const none of [undefined, null, []]) {
    assert.deepEqual(expectOk(parseLocations(none)), {
      place: null,
      online_locations: [],
    });
  }
  // Bare strings and junk are references or noise: skipped.
  assert.deepEqual(
    expectOk(parseLocations(["https://remote.example/place/1", 3, true])),
    { place: null, online_locations: [] },
  );
});

// --- Gancio event ---

Deno.test("Gancio Create: the Event object parses", async () => {
  const activity = await fixture("gancio-event-activity.json") as {
    object: unknown;
  };
  const ev = expectOk(parseRemoteEvent(activity.object));
  assert.equal(ev.ap_id, "https://demo.gancio.org/federation/m/1");
  assert.equal(ev.title, "Demo event");
  assert.equal(ev.start_datetime, unix("2021-07-14T15:30:57Z"));
  assert.equal(ev.end_datetime, unix("2021-07-14T16:30:57Z"));
  assert.equal(ev.status, "EventScheduled");
  assert.deepEqual(ev.tags, ["test"]);
  assert.deepEqual(ev.place, place({ name: "Colosseo" }));
  assert.deepEqual(ev.online_locations, []);
  assert.equal(ev.url, "https://demo.gancio.org/event/demo-event");
  assert.equal(ev.attributedTo, "https://demo.gancio.org/federation/u/gancio");
  assert.equal(
    ev.description,
    "📍 Colosseo\n    📅 Wednesday, 14 July (17:30)",
  );
  assert.deepEqual(ev.media, []);
  assert.equal(ev.timezone, null);
  // The activity itself is not an Event.
  expectFail(parseRemoteEvent(activity), /not an Event/);
});

// --- Mobilizon-like event ---

function mobilizonEvent(fields: Record<string, unknown> = {}) {
  return {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      {
        mz: "https://joinmobilizon.org/ns#",
        sc: "http://schema.org#",
        ical: "http://www.w3.org/2002/12/cal/ical#",
      },
    ],
    type: "Event",
    id: "https://mobilizon.example/events/8c1a-uuid",
    url: "https://mobilizon.example/events/8c1a-uuid",
    uuid: "8c1a-uuid",
    name: "  Repair café\n(spring edition)  ",
    content:
      '<p onclick="x()">Bring <b>your</b> toaster. <a href="javascript:alert(1)">x</a><script>alert(1)</script></p>',
    mediaType: "text/html",
    startTime: "2026-03-28T14:00:00+01:00",
    endTime: "2026-03-28T18:00:00+01:00",
    timezone: "Europe/Paris",
    attributedTo: "https://mobilizon.example/@repair_group",
    actor: "https://mobilizon.example/@organiser",
    "ical:status": "CONFIRMED",
    status: "CONFIRMED",
    eventStatus: "https://schema.org/EventCancelled",
    "mz:joinMode": "free",
    isOnline: false,
    location: {
      type: "Place",
      id: "https://mobilizon.example/address/44f2",
      name: "Maison des associations",
      address: {
        type: "PostalAddress",
        streetAddress: "12 rue de la Paix",
        postalCode: "75002",
        addressLocality: "Paris",
        addressRegion: "Île-de-France",
        addressCountry: "France",
      },
      latitude: 48.8686,
      longitude: 2.3314,
    },
    tag: [
      {
        type: "Hashtag",
        name: "#Repair",
        href: "https://mobilizon.example/tags/repair",
      },
      { type: "Hashtag", name: "#repair" },
      {
        type: "Mention",
        name: "@someone@elsewhere",
        href: "https://x.example/@someone",
      },
      "Café",
    ],
    attachment: [
      {
        type: "Document",
        name: "Banner",
        mediaType: "image/jpeg",
        url: "https://mobilizon.example/media/banner.jpg",
        blurhash: "LEHV6nWB2yk8pyo0adR*.7kCMdnj",
      },
      {
        type: "Link",
        name: "Website",
        mediaType: "text/html",
        href: "https://repair.example/spring",
      },
      {
        type: "PropertyValue",
        name: "mz:contact:email",
        value: "hello@repair.example",
      },
    ],
    ...fields,
  };
}

Deno.test("Mobilizon-like event: PostalAddress, mz: terms, status IRI, Website link", () => {
  const ev = expectOk(parseRemoteEvent(mobilizonEvent()));
  assert.equal(ev.ap_id, "https://mobilizon.example/events/8c1a-uuid");
  assert.equal(ev.title, "Repair café (spring edition)");
  assert.equal(
    ev.description,
    '<p>Bring <b>your</b> toaster. <a rel="noopener noreferrer nofollow">x</a></p>',
  );
  assert.equal(ev.start_datetime, unix("2026-03-28T13:00:00Z"));
  assert.equal(ev.end_datetime, unix("2026-03-28T17:00:00Z"));
  // schema.org's eventStatus outranks Mobilizon's status.
  assert.equal(ev.status, "EventCancelled");
  assert.equal(ev.timezone, "Europe/Paris");
  assert.equal(ev.attributedTo, "https://mobilizon.example/@repair_group");
  assert.deepEqual(ev.place, {
    name: "Maison des associations",
    address: "12 rue de la Paix, 75002 Paris, Île-de-France, France",
    postal_address: {
      streetAddress: "12 rue de la Paix",
      postalCode: "75002",
      addressLocality: "Paris",
      addressRegion: "Île-de-France",
      addressCountry: "France",
    },
    latitude: 48.8686,
    longitude: 2.3314,
    ap_id: "https://mobilizon.example/address/44f2",
  });
  // A physical event's Website is not a place; the object's own url wins.
  assert.deepEqual(ev.online_locations, []);
  assert.equal(ev.url, "https://mobilizon.example/events/8c1a-uuid");
  assert.deepEqual(ev.tags, ["Repair", "Café"]);
  assert.deepEqual(ev.media, [{
    url: "https://mobilizon.example/media/banner.jpg",
    name: "Banner",
    focalpoint: [0, 0],
    width: null,
    height: null,
  }]);
});

Deno.test("Mobilizon-like event: the Website link as url and as online location", () => {
  // Without `url`, the Website link is the event's page.
  const noUrl = mobilizonEvent();
  delete (noUrl as Record<string, unknown>).url;
  assert.equal(
    expectOk(parseRemoteEvent(noUrl)).url,
    "https://repair.example/spring",
  );
  // An online Mobilizon event is attended at its Website link.
  const online = expectOk(parseRemoteEvent(
    mobilizonEvent({ isOnline: true, location: undefined }),
  ));
  assert.equal(online.place, null);
  assert.deepEqual(online.online_locations, ["https://repair.example/spring"]);
  // A javascript: Website link never comes out.
  const bad = mobilizonEvent({
    url: undefined,
    isOnline: true,
    attachment: [{
      type: "Link",
      name: "Website",
      href: "javascript:alert(1)",
    }],
  });
  const parsed = expectOk(parseRemoteEvent(bad));
  assert.equal(parsed.url, null);
  assert.deepEqual(parsed.online_locations, []);
});

Deno.test("Mobilizon-like event: prefixed keys and types", () => {
  const ev = parseEvent({
    type: "https://www.w3.org/ns/activitystreams#Event",
    "mz:status": "CANCELLED",
    location: {
      type: "schema:Place",
      "schema:name": "Prefixed",
      "schema:address": {
        type: "schema:PostalAddress",
        "schema:addressLocality": "Graz",
        "schema:addressCountry": { type: "Country", name: "Austria" },
      },
    },
  });
  assert.equal(ev.status, "EventCancelled");
  assert.equal(ev.place?.name, "Prefixed");
  assert.equal(ev.place?.address, "Graz, Austria");
  assert.deepEqual(ev.place?.postal_address, {
    addressLocality: "Graz",
    addressCountry: "Austria",
  });
});

// --- Mastodon ---

Deno.test("Mastodon Create: the Note parses as a reply", async () => {
  const activity = await fixture("mastodon-post-activity.json") as {
    object: Record<string, unknown>;
  };
  const note = expectOk(parseRemoteNote(activity.object));
  assert.equal(
    note.ap_id,
    "https://framapiaf.org/users/admin/statuses/99512778738411822",
  );
  assert.equal(
    note.content,
    '<p><span><a href="https://framapiaf.org/users/tcit" rel="noopener noreferrer nofollow">@<span>tcit</span></a></span></p>',
  );
  assert.deepEqual(note.inReplyTo, []);
  assert.equal(note.attributedTo, "https://framapiaf.org/users/admin");
  assert.equal(note.url, "https://framapiaf.org/@admin/99512778738411822");
  assert.equal(note.published, "2018-02-12T14:08:20.000Z");
  assert.equal(note.summary, "cw");
  assert.deepEqual(note.attachment, []);

  // A reply to one of our events, with a hostile body.
  const reply = expectOk(parseRemoteNote({
    ...activity.object,
    inReplyTo: "https://quando.example/federation/m/7",
    content: '<p>Nice!<img src=x onerror="alert(1)"><script>bad()</script></p>',
    attachment: [1, { type: "Document" }, { type: "Image" }, "x", {}, {}, {}],
  }));
  assert.deepEqual(reply.inReplyTo, ["https://quando.example/federation/m/7"]);
  assert.equal(reply.content, "<p>Nice!</p>");
  assert.equal(reply.attachment.length, 4);

  // inReplyTo as an object or an array of mixed references.
  const many = expectOk(parseRemoteNote({
    ...activity.object,
    inReplyTo: [
      { id: "https://a.example/1" },
      "javascript:alert(1)",
      "https://b.example/2",
      "https://a.example/1",
    ],
  }));
  assert.deepEqual(many.inReplyTo, [
    "https://a.example/1",
    "https://b.example/2",
  ]);
});

Deno.test("other fixtures: nothing throws, and non-events are refused", async () => {
  const files = [...Deno.readDirSync(FIXTURES)]
    .filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name);
  assert.ok(files.length >= 10);
  for (const file of files) {
    const activity = await fixture(file) as Record<string, unknown>;
    for (const candidate of [activity, activity.object]) {
      const ev = parseRemoteEvent(candidate);
      const note = parseRemoteNote(candidate);
      // Only the Gancio event is an Event; only the Mastodon post a Note.
      assert.equal(
        ev.ok,
        file === "gancio-event-activity.json" && candidate === activity.object,
        `${file}: ${JSON.stringify(ev)}`,
      );
      assert.equal(
        note.ok,
        file === "mastodon-post-activity.json" && candidate === activity.object,
        `${file}: ${JSON.stringify(note)}`,
      );
    }
  }
  // The Mobilizon Join's object is a bare Event id: refused, not a crash.
  const join = await fixture("mobilizon-join-activity.json") as {
    object: unknown;
  };
  expectFail(parseRemoteEvent(join.object), /not an object/);
});

// --- status ---

Deno.test("status mapping", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{}, "EventScheduled"],
    [{ eventStatus: "EventCancelled" }, "EventCancelled"],
    [{ eventStatus: "https://schema.org/EventPostponed" }, "EventPostponed"],
    [{ eventStatus: "http://schema.org/EventRescheduled" }, "EventRescheduled"],
    [{ eventStatus: "schema:EventMovedOnline" }, "EventMovedOnline"],
    [{ "schema:eventStatus": "EventCancelled" }, "EventCancelled"],
    [
      { eventStatus: { id: "https://schema.org/EventCancelled" } },
      "EventCancelled",
    ],
    [{ eventStatus: "eventcancelled" }, "EventCancelled"],
    [{ "ical:status": "CANCELLED" }, "EventCancelled"],
    [{ "ical:status": "TENTATIVE" }, "EventScheduled"],
    [{ status: "CONFIRMED" }, "EventScheduled"],
    [{ status: "cancelled" }, "EventCancelled"],
    [{ "mz:status": "CANCELLED" }, "EventCancelled"],
    [{ eventStatus: "EventSoldOut", status: "CANCELLED" }, "EventCancelled"],
    [{ eventStatus: "nonsense" }, "EventScheduled"],
    [{ eventStatus: 42 }, "EventScheduled"],
    [{ eventStatus: ["EventCancelled"] }, "EventScheduled"],
  ];
  for (const [fields, expected] of cases) {
    assert.equal(parseEvent(fields).status, expected, JSON.stringify(fields));
  }
});

// --- times and time zones ---

Deno.test("times: offsets, Z, fractions, and the end", () => {
  const at = (startTime: string) => parseEvent({ startTime }).start_datetime;
  assert.equal(at("2026-07-14T20:00:00Z"), unix("2026-07-14T20:00:00Z"));
  assert.equal(at("2026-07-14T20:00:00+02:00"), unix("2026-07-14T18:00:00Z"));
  assert.equal(at("2026-07-14T20:00:00-05:30"), unix("2026-07-15T01:30:00Z"));
  assert.equal(at("2026-07-14T20:00:00+0200"), unix("2026-07-14T18:00:00Z"));
  assert.equal(at("2026-07-14T20:00:00+02"), unix("2026-07-14T18:00:00Z"));
  assert.equal(at("2026-07-14T20:00Z"), unix("2026-07-14T20:00:00Z"));
  assert.equal(at("2026-07-14T20:00:00.999Z"), unix("2026-07-14T20:00:00Z"));
  assert.equal(at("2026-01-01T00:30:00+01:00"), unix("2025-12-31T23:30:00Z"));
  assert.equal(at("2028-02-29T10:00:00Z"), unix("2028-02-29T10:00:00Z"));

  // endTime: kept when after the start, else null.
  assert.equal(
    parseEvent({ endTime: "2026-07-14T22:00:00+02:00" }).end_datetime,
    null, // 20:00Z start, 20:00Z end: not after
  );
  assert.equal(
    parseEvent({ endTime: "2026-07-14T23:00:00+02:00" }).end_datetime,
    unix("2026-07-14T21:00:00Z"),
  );
  assert.equal(
    parseEvent({ endTime: "2026-07-14T19:00:00Z" }).end_datetime,
    null,
  );
  assert.equal(parseEvent({ endTime: "tomorrow" }).end_datetime, null);
  assert.equal(parseEvent({ endTime: 1_800_000_000 }).end_datetime, null);
});

Deno.test("time zones: IANA names only", () => {
  assert.equal(parseEvent({ timezone: "Europe/Rome" }).timezone, "Europe/Rome");
  assert.equal(parseEvent({ timezone: "UTC" }).timezone, "UTC");
  assert.equal(parseEvent({ timezone: "europe/rome" }).timezone, "Europe/Rome");
  assert.equal(
    parseEvent({ timezone: "America/Argentina/Buenos_Aires" }).timezone,
    "America/Argentina/Buenos_Aires",
  );
  for (
    const bad of ["+02:00", "Mars/Olympus_Mons", "", "Europe/../etc", 2, {}]
  ) {
    assert.equal(parseEvent({ timezone: bad }).timezone, null, String(bad));
  }
  // The zone does not reinterpret an explicit offset.
  assert.equal(
    parseEvent({
      timezone: "America/New_York",
      startTime: "2026-07-14T20:00:00+02:00",
    }).start_datetime,
    unix("2026-07-14T18:00:00Z"),
  );
});

// --- other fields ---

Deno.test("title, url, attributedTo, media, tags", () => {
  assert.equal(
    parseEvent({ name: undefined, nameMap: { it: "Concerto" } }).title,
    "Concerto",
  );
  assert.equal(parseEvent({ name: "x".repeat(1000) }).title.length, 250);

  assert.equal(
    parseEvent({ url: { type: "Link", href: "https://r.example/e/1" } }).url,
    "https://r.example/e/1",
  );
  assert.equal(
    parseEvent({
      url: [
        {
          type: "Link",
          mediaType: "video/mp4",
          href: "https://r.example/v.mp4",
        },
        { type: "Link", mediaType: "text/html", href: "https://r.example/e/1" },
      ],
    }).url,
    "https://r.example/e/1",
  );
  assert.equal(parseEvent({ url: "/relative" }).url, null);

  assert.equal(
    parseEvent({
      attributedTo: { type: "Person", id: "https://r.example/u/a" },
    })
      .attributedTo,
    "https://r.example/u/a",
  );
  assert.equal(
    parseEvent({
      attributedTo: [7, "https://r.example/u/b", "https://r.example/u/c"],
    })
      .attributedTo,
    "https://r.example/u/b",
  );
  assert.equal(parseEvent({}).attributedTo, null);

  const media = parseEvent({
    attachment: [
      {
        type: "Document",
        mediaType: "image/png",
        url: "https://r.example/a.png",
        name: "Alt text",
        focalPoint: [0.5, -3],
        width: 800,
        height: 600,
      },
      { type: "Image", url: "https://r.example/b.jpg" },
      {
        type: "Document",
        mediaType: "application/pdf",
        url: "https://r.example/c.pdf",
      },
      {
        type: "Document",
        mediaType: "image/svg+xml",
        url: "https://r.example/d.svg",
      },
      { type: "Image", url: "javascript:alert(1)" },
      { type: "Image", url: "https://r.example/a.png" },
    ],
    image: "https://r.example/e.webp",
  }).media;
  assert.deepEqual(media, [
    {
      url: "https://r.example/a.png",
      name: "Alt text",
      focalpoint: [0.5, -1],
      width: 800,
      height: 600,
    },
    {
      url: "https://r.example/b.jpg",
      name: "",
      focalpoint: [0, 0],
      width: null,
      height: null,
    },
    {
      url: "https://r.example/e.webp",
      name: "",
      focalpoint: [0, 0],
      width: null,
      height: null,
    },
  ]);
  const many = Array.from({ length: 30 }, (_, i) => ({
    type: "Image",
    url: `https://r.example/${i}.jpg`,
  }));
  assert.equal(parseEvent({ attachment: many }).media.length, 10);

  assert.deepEqual(
    parseEvent({
      tag: [
        { type: "Hashtag", name: "#Jazz" },
        { type: "Hashtag", name: "#jazz" },
        { type: "Hashtag", name: "  #Live  " },
        { type: "Hashtag", name: "#" },
        { type: "Hashtag", name: `#${"y".repeat(200)}` },
        { type: "Emoji", name: ":blob:" },
      ],
    }).tags,
    ["Jazz", "Live"],
  );
  assert.deepEqual(
    parseEvent({ tag: { type: "Hashtag", name: "#solo" } }).tags,
    ["solo"],
  );
});

Deno.test("description: HTML sanitised, plain text escaped, language maps", () => {
  assert.equal(
    parseEvent({
      content: '<h2 style="color:red">Hi</h2><iframe src="https://x"></iframe>',
    })
      .description,
    "<h2>Hi</h2>",
  );
  assert.equal(
    parseEvent({ mediaType: "text/plain", content: "a < b & c\nnext\n\npara" })
      .description,
    "<p>a &lt; b &amp; c<br />next</p><p>para</p>",
  );
  assert.equal(
    parseEvent({ contentMap: { fr: "<p>Bonjour</p>" } }).description,
    "<p>Bonjour</p>",
  );
});

Deno.test("an event without any location is accepted", () => {
  const ev = parseEvent();
  assert.equal(ev.place, null);
  assert.deepEqual(ev.online_locations, []);
  assert.equal(ev.description, "");
  assert.equal(ev.end_datetime, null);
});

// --- bad inputs ---

Deno.test("bad inputs are refused with a reason", () => {
  for (const junk of [null, undefined, 0, 42, "Event", true, [], [event()]]) {
    expectFail(parseRemoteEvent(junk), /not an object/);
    expectFail(parseRemoteNote(junk), /not an object/);
  }
  expectFail(parseRemoteEvent(event({ id: undefined })), /id/);
  expectFail(parseRemoteEvent(event({ id: "/federation/m/1" })), /id/);
  expectFail(parseRemoteEvent(event({ id: "javascript:alert(1)//x" })), /id/);
  expectFail(parseRemoteEvent(event({ id: "ftp://remote.example/1" })), /id/);
  expectFail(
    parseRemoteEvent(event({ id: { id: "https://x.example/1" } })),
    /id/,
  );
  expectFail(parseRemoteEvent(event({ name: undefined })), /name/);
  expectFail(parseRemoteEvent(event({ name: "   \n\t " })), /name/);
  expectFail(parseRemoteEvent(event({ name: 12 })), /name/);
  expectFail(parseRemoteEvent(event({ type: "Note" })), /not an Event/);
  expectFail(parseRemoteNote(event()), /not a Note/);
  expectFail(parseRemoteNote({ type: "Note", content: "hi" }), /id/);
  for (
    const startTime of [
      undefined,
      "",
      "yesterday",
      "2026-07-14", // a date alone has no time
      "2026-07-14T20:00:00", // no offset: the sender's zone would be a guess
      "2026-02-30T20:00:00Z",
      "2026-13-01T20:00:00Z",
      "2026-07-14T24:00:00Z",
      "2026-07-14T20:61:00Z",
      "2026-07-14T20:00:00+25:00",
      "1969-12-31T23:59:59Z",
      "2200-01-01T00:00:00Z",
      "0070-01-01T00:00:00Z",
      1_800_000_000,
      `2026-07-14T20:00:00Z${" ".repeat(100)}x`,
    ]
  ) {
    expectFail(parseRemoteEvent(event({ startTime })), /startTime/);
  }
});

Deno.test("javascript: and other non-http links never come out", () => {
  const ev = parseEvent({
    url: "javascript:alert(1)",
    attributedTo: "javascript:alert(1)",
    content:
      '<a href="javascript:alert(1)">x</a><a href="JaVaScRiPt:alert(1)">y</a>',
    location: [
      {
        type: "Place",
        name: "Ok",
        address: { type: "VirtualLocation", url: "javascript:x" },
        id: "data:text/html,x",
      },
      { type: "VirtualLocation", url: " https://ok.example/room " },
      { type: "VirtualLocation", url: "http://exa mple.com" },
    ],
    attachment: [{ type: "Image", url: "data:image/png;base64,AAAA" }],
  });
  assert.equal(ev.url, null);
  assert.equal(ev.attributedTo, null);
  assert.doesNotMatch(ev.description, /javascript/i);
  assert.equal(ev.place, null);
  assert.deepEqual(ev.online_locations, ["https://ok.example/room"]);
  assert.deepEqual(ev.media, []);
  assert.doesNotMatch(JSON.stringify(ev), /javascript|data:/i);
});

Deno.test("robustness: junk never throws, huge strings are cut", () => {
  let deep: unknown = "https://deep.example";
  for (let i = 0; i < 10_000; i++) {
    deep = i % 2 ? [deep] : { url: deep, id: deep };
  }
  const huge = "a".repeat(2_000_000);
  const hostile = {
    get name(): string {
      throw new Error("boom");
    },
  };
  const inputs: unknown[] = [
    event({
      location: deep,
      tag: deep,
      attachment: deep,
      url: deep,
      attributedTo: deep,
    }),
    event({ location: Array.from({ length: 100_000 }, () => ({})) }),
    event({
      name: huge,
      content: `<p>${huge}</p>`,
      location: { name: huge, address: huge },
    }),
    event({ eventStatus: huge, timezone: huge, startTime: huge }),
    event({ type: huge, id: `https://x.example/${huge}` }),
    event({ location: hostile }),
    hostile,
    Object.create(null),
    Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`k${i}:name`, i]),
    ),
    { ...event(), "@context": deep, nameMap: { en: huge } },
    event({ tag: Array.from({ length: 100_000 }, (_, i) => `t${i}`) }),
  ];
  for (const input of inputs) {
    const started = performance.now();
    const ev = parseRemoteEvent(input);
    const note = parseRemoteNote(input);
    parseLocations(input);
    assert.ok(performance.now() - started < 5_000, "too slow");
    if (ev.ok) {
      assert.ok(ev.value.title.length <= 250);
      assert.ok(ev.value.description.length <= 60_000);
      assert.ok((ev.value.place?.name.length ?? 0) <= 200);
      assert.ok((ev.value.place?.address.length ?? 0) <= 300);
      assert.ok(ev.value.tags.length <= 20);
    }
    if (note.ok) assert.ok(note.value.content.length <= 60_000);
  }
  const big = expectOk(parseRemoteEvent(
    event({
      name: huge,
      content: huge,
      location: { name: huge, address: huge },
    }),
  ));
  assert.equal(big.title.length, 250);
  assert.equal(big.place?.name.length, 200);
  assert.equal(big.place?.address.length, 300);
  expectFail(parseRemoteEvent(event({ location: hostile })), /unreadable/);
  // A throwing getter on a field the parser reads: refused, not thrown.
  const hostileEvent = Object.defineProperty(event(), "name", {
    enumerable: true,
    get(): string {
      throw new Error("boom");
    },
  });
  expectFail(parseRemoteEvent(hostileEvent), /unreadable/);
  const hostileNote = Object.defineProperty(
    { type: "Note", id: "https://x.example/n/1" },
    "content",
    {
      enumerable: true,
      get(): string {
        throw new Error("boom");
      },
    },
  );
  expectFail(parseRemoteNote(hostileNote), /unreadable/);
});
