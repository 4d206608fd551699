import assert from "node:assert/strict";
import {
  parseRemoteEvent,
  type RemoteEvent,
} from "../lib/federation/parse/event.ts";
import {
  parseLocations,
  type RemotePlace,
} from "../lib/federation/parse/location.ts";
import { parseRemoteNote } from "../lib/federation/parse/note.ts";
import { type FixtureDir, fixtureDirs, readFixture } from "./apfixtures.ts";

/**
 * Quando's own fixtures (tests/fixtures/activitypub/), and the captured
 * payloads in ../shared/fixtures/activitypub/ when that folder is present.
 * Every fixture test runs once per folder, with that folder's expectations.
 */
const DIRS = fixtureDirs("tests/federation-parse.test.ts");

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

/** What each set's fixtures parse to. */
interface SetExpectations {
  /** One entry per file of `gancio-locations/`. */
  locations: Record<string, LocationExpectation>;
  /** The Event inside `gancio-event-activity.json`. */
  gancio: RemoteEvent;
  /** The Event inside `mobilizon-event-activity.json`, when the set has one. */
  mobilizon?: RemoteEvent;
  /** The Note inside `mastodon-post-activity.json`. */
  note: {
    ap_id: string;
    content: string;
    attributedTo: string;
    url: string;
    published: string;
    summary: string;
  };
}

const EXPECTED: Record<FixtureDir["label"], SetExpectations> = {
  ours: {
    locations: {
      "bad-location-without-a-name.json": { fails: true },
      "multiple-mixed-locations.json": {
        place: place({
          name: "Old tram depot",
          ap_id: "https://gancio.example/federation/p/31",
        }),
        online: [
          "https://stream.gancio.example/live",
          "https://backup-stream.example/live",
        ],
      },
      "physical-location-no-address.json": {
        place: place({
          name: "Community garden",
          ap_id: "https://gancio.example/federation/p/33",
        }),
        online: [],
      },
      "physical-location-with-postal-address.json": {
        place: place({
          name: "Neighbourhood hall",
          address: "Via dei Tigli 7, 40121 Bologna, Emilia-Romagna, Italy",
          postal_address: {
            streetAddress: "Via dei Tigli 7",
            postalCode: "40121",
            addressLocality: "Bologna",
            addressRegion: "Emilia-Romagna",
            addressCountry: "Italy",
          },
          ap_id: "https://gancio.example/federation/p/34",
        }),
        online: [],
      },
      "physical-location-with-simple-string-address.json": {
        place: place({
          name: "Riverside park",
          address: "Lungofiume 2, Bologna",
          ap_id: "https://gancio.example/federation/p/35",
        }),
        online: [],
      },
      "physical-location-without-id.json": {
        place: place({ name: "Market square" }),
        online: [],
      },
      "virtual-location.json": {
        place: null,
        online: ["https://meet.gancio.example/room/assembly"],
      },
    },
    gancio: {
      ap_id: "https://gancio.example/federation/m/12",
      title: "Open-air cinema night",
      description: "📍 Community garden\n    📅 Friday, 21 August (21:15)",
      start_datetime: unix("2026-08-21T19:15:00Z"),
      end_datetime: unix("2026-08-21T21:30:00Z"),
      status: "EventScheduled",
      place: place({ name: "Community garden" }),
      online_locations: [],
      tags: ["cinema"],
      media: [],
      url: "https://gancio.example/event/open-air-cinema-night",
      attributedTo: "https://gancio.example/federation/u/events",
      timezone: null,
    },
    mobilizon: {
      ap_id:
        "https://mobilizon.example/events/0d7c4e1a-3b52-4f6e-8a91-5c2d7e0f4b38",
      title: "Bike repair workshop",
      description:
        "<p>Bring your bike and we fix it together. Tools and tea provided.</p>",
      start_datetime: unix("2026-09-12T08:00:00Z"),
      end_datetime: unix("2026-09-12T11:00:00Z"),
      // Mobilizon's `ical:status` CONFIRMED.
      status: "EventScheduled",
      place: {
        name: "Bike Kitchen",
        address: "Werkstattweg 8, 10999 Berlin, Berlin, Germany",
        postal_address: {
          streetAddress: "Werkstattweg 8",
          postalCode: "10999",
          addressLocality: "Berlin",
          addressRegion: "Berlin",
          addressCountry: "Germany",
        },
        latitude: 52.4986,
        longitude: 13.4188,
        ap_id:
          "https://mobilizon.example/address/9e1f6a2c-44b7-4d0e-b3a8-71c5e2d90f16",
      },
      // A physical event: its Website link is not where it happens.
      online_locations: [],
      tags: ["bikes", "repair"],
      media: [],
      url:
        "https://mobilizon.example/events/0d7c4e1a-3b52-4f6e-8a91-5c2d7e0f4b38",
      // The group that organises it, not the member who posted it.
      attributedTo: "https://mobilizon.example/@bike_kitchen",
      timezone: "Europe/Berlin",
    },
    note: {
      ap_id: "https://mastodon.example/users/ana/statuses/112240118734650021",
      content:
        '<p><span><a href="https://mastodon.example/users/cinema_club" rel="noopener noreferrer nofollow">@<span>cinema_club</span></a></span> see you on Friday!</p>',
      attributedTo: "https://mastodon.example/users/ana",
      url: "https://mastodon.example/@ana/112240118734650021",
      published: "2024-05-03T18:42:07.000Z",
      summary: "film spoilers",
    },
  },
  captured: {
    locations: {
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
          address:
            "15 Fediverse Street, 8010 Fediverse Town, Steiermark, Austria",
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
    },
    gancio: {
      ap_id: "https://demo.gancio.org/federation/m/1",
      title: "Demo event",
      description: "📍 Colosseo\n    📅 Wednesday, 14 July (17:30)",
      start_datetime: unix("2021-07-14T15:30:57Z"),
      end_datetime: unix("2021-07-14T16:30:57Z"),
      status: "EventScheduled",
      place: place({ name: "Colosseo" }),
      online_locations: [],
      tags: ["test"],
      media: [],
      url: "https://demo.gancio.org/event/demo-event",
      attributedTo: "https://demo.gancio.org/federation/u/gancio",
      timezone: null,
    },
    note: {
      ap_id: "https://framapiaf.org/users/admin/statuses/99512778738411822",
      content:
        '<p><span><a href="https://framapiaf.org/users/tcit" rel="noopener noreferrer nofollow">@<span>tcit</span></a></span></p>',
      attributedTo: "https://framapiaf.org/users/admin",
      url: "https://framapiaf.org/@admin/99512778738411822",
      published: "2018-02-12T14:08:20.000Z",
      summary: "cw",
    },
  },
};

/** The top-level files every set must have (the tests below read them). */
const REQUIRED_FILES = [
  "gancio-actor.json",
  "gancio-event-activity.json",
  "mastodon-accept-activity.json",
  "mastodon-actor.json",
  "mastodon-announce.json",
  "mastodon-delete.json",
  "mastodon-follow-activity.json",
  "mastodon-like.json",
  "mastodon-post-activity.json",
  "mastodon-reject-activity.json",
  "mastodon-undo-announce.json",
  "mastodon-undo-like.json",
  "mastodon-unfollow-activity.json",
  "mobilizon-join-activity.json",
];

/** The files whose `object` is an Event; every other object is refused as one. */
const EVENT_FILES = new Set([
  "gancio-event-activity.json",
  "mobilizon-event-activity.json",
]);

function jsonFiles(dir: URL): string[] {
  return [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name)
    .sort();
}

for (const fx of DIRS) {
  const expected = EXPECTED[fx.label];
  const fixture = (path: string) => readFixture(fx, path);
  const locationFiles = jsonFiles(new URL("gancio-locations/", fx.dir));

  Deno.test(`[${fx.label}] every Gancio location fixture has an expectation, and back`, () => {
    assert.deepEqual(locationFiles, Object.keys(expected.locations).sort());
  });

  for (const file of locationFiles) {
    Deno.test(`[${fx.label}] Gancio location fixture ${file}`, () => {
      const want = expected.locations[file];
      assert.ok(want, `no expectation for ${file}`);
      const location = fixture(`gancio-locations/${file}`);
      const parsed = parseLocations(location);
      // The same location carried by an event, as its only location.
      const inEvent = parseRemoteEvent(event({ location }));
      if ("fails" in want) {
        expectFail(parsed, /name/);
        expectFail(inEvent, /location/);
        return;
      }
      assert.deepEqual(expectOk(parsed), {
        place: want.place,
        online_locations: want.online,
      });
      const ev = expectOk(inEvent);
      assert.deepEqual(ev.place, want.place);
      assert.deepEqual(ev.online_locations, want.online);
    });
  }

  // --- Gancio event ---

  Deno.test(`[${fx.label}] Gancio Create: the Event object parses`, () => {
    const activity = fixture("gancio-event-activity.json") as {
      object: unknown;
    };
    const ev = expectOk(parseRemoteEvent(activity.object));
    const want = expected.gancio;
    assert.equal(ev.ap_id, want.ap_id);
    assert.equal(ev.title, want.title);
    assert.equal(ev.start_datetime, want.start_datetime);
    assert.equal(ev.end_datetime, want.end_datetime);
    assert.equal(ev.status, "EventScheduled");
    assert.deepEqual(ev.tags, want.tags);
    assert.deepEqual(ev.place, want.place);
    assert.deepEqual(ev.online_locations, []);
    assert.equal(ev.url, want.url);
    assert.equal(ev.attributedTo, want.attributedTo);
    assert.equal(ev.description, want.description);
    assert.deepEqual(ev.media, []);
    assert.equal(ev.timezone, null);
    // Nothing else comes out.
    assert.deepEqual(ev, want);
    // The activity itself is not an Event.
    expectFail(parseRemoteEvent(activity), /not an Event/);
  });

  // --- Mobilizon event (only our set has one) ---

  const mobilizon = expected.mobilizon;
  if (mobilizon) {
    Deno.test(`[${fx.label}] Mobilizon Create: the Event object parses (PostalAddress, mz: terms, ical:status)`, () => {
      const activity = fixture("mobilizon-event-activity.json") as {
        object: Record<string, unknown>;
      };
      assert.deepEqual(expectOk(parseRemoteEvent(activity.object)), mobilizon);
      expectFail(parseRemoteEvent(activity), /not an Event/);
      // Online, it is attended at its Website link.
      const online = expectOk(parseRemoteEvent({
        ...activity.object,
        isOnline: true,
        location: undefined,
      }));
      assert.equal(online.place, null);
      assert.deepEqual(online.online_locations, [
        "https://bikekitchen.example/workshops",
      ]);
    });
  }

  // --- Mastodon ---

  Deno.test(`[${fx.label}] Mastodon Create: the Note parses as a reply`, () => {
    const activity = fixture("mastodon-post-activity.json") as {
      object: Record<string, unknown>;
    };
    const want = expected.note;
    const note = expectOk(parseRemoteNote(activity.object));
    assert.equal(note.ap_id, want.ap_id);
    assert.equal(note.content, want.content);
    assert.deepEqual(note.inReplyTo, []);
    assert.equal(note.attributedTo, want.attributedTo);
    assert.equal(note.url, want.url);
    assert.equal(note.published, want.published);
    assert.equal(note.summary, want.summary);
    assert.deepEqual(note.attachment, []);

    // A reply to one of our events, with a hostile body.
    const reply = expectOk(parseRemoteNote({
      ...activity.object,
      inReplyTo: "https://quando.example/federation/m/7",
      content:
        '<p>Nice!<img src=x onerror="alert(1)"><script>bad()</script></p>',
      attachment: [1, { type: "Document" }, { type: "Image" }, "x", {}, {}, {}],
    }));
    assert.deepEqual(reply.inReplyTo, [
      "https://quando.example/federation/m/7",
    ]);
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

  Deno.test(`[${fx.label}] other fixtures: nothing throws, and non-events are refused`, () => {
    const files = jsonFiles(fx.dir);
    for (const name of REQUIRED_FILES) {
      assert.ok(files.includes(name), `${name} is missing from ${fx.dir}`);
    }
    for (const file of files) {
      const activity = fixture(file) as Record<string, unknown>;
      for (const candidate of [activity, activity.object]) {
        const ev = parseRemoteEvent(candidate);
        const note = parseRemoteNote(candidate);
        // Only the Gancio and Mobilizon events are Events; only the Mastodon
        // post a Note.
        assert.equal(
          ev.ok,
          EVENT_FILES.has(file) && candidate === activity.object,
          `${file}: ${JSON.stringify(ev)}`,
        );
        assert.equal(
          note.ok,
          file === "mastodon-post-activity.json" &&
            candidate === activity.object,
          `${file}: ${JSON.stringify(note)}`,
        );
      }
    }
    // The Mobilizon Join's object is a bare Event id: refused, not a crash.
    const join = fixture("mobilizon-join-activity.json") as {
      object: unknown;
    };
    assert.equal(typeof join.object, "string");
    expectFail(parseRemoteEvent(join.object), /not an object/);
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
