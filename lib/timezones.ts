/**
 * The time zones an admin chooses from, by their current IANA names.
 * `Intl.supportedValuesOf("timeZone")` answers with CLDR's canonical names,
 * which on V8 (Deno) are still some of IANA's backward-compatible links
 * (`Europe/Kiev`, `Asia/Calcutta`); those are offered by the name IANA
 * uses today. A stored old name keeps working: the runtime accepts both.
 */

/** CLDR's old canonical names and IANA's current ones (tzdata's `backward` file). */
const RENAMED: Readonly<Record<string, string>> = {
  "Africa/Asmera": "Africa/Asmara",
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Coral_Harbour": "America/Atikokan",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

/** Whether the runtime knows `zone` (by any of its names). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The current IANA name of `zone` (itself unless it is one of CLDR's old names the runtime accepts the new one of). */
export function currentZoneName(zone: string): string {
  const current = RENAMED[zone];
  return current !== undefined && isTimeZone(current) ? current : zone;
}

/** Every zone the runtime knows, by its current IANA name, sorted, UTC first. */
export function currentTimeZones(): string[] {
  const zones = new Set(
    Intl.supportedValuesOf("timeZone").map(currentZoneName),
  );
  zones.delete("UTC");
  return ["UTC", ...[...zones].sort()];
}
