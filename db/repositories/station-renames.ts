import type { Conn, Trx } from '../knex';

/**
 * Door stations renamed at an event (migration 20261202000000): each old name that has scans,
 * with the name its station goes by now, so the supervisor shows that history under the new
 * name after a restart too. Always one hop: no current name is also an old one.
 */
export async function stationRenames(db: Conn, eventId: number): Promise<Map<string, string>> {
  const rows: { from_name: string; to_name: string }[] = await db('station_renames').where({ event_id: eventId }).select('from_name', 'to_name');
  return new Map(rows.map((r) => [r.from_name, r.to_name]));
}

/**
 * Who made the scans of `station` here (its own and those of the names it had before):
 * `scanner` when some are theirs and none another's (scans that came in event files name
 * nobody and are left out), else undefined.
 */
export async function soleScanner(db: Conn, eventId: number, station: string, scanner: string): Promise<string | undefined> {
  const scans = () =>
    db('checkins')
      .where({ event_id: eventId })
      .where((q) => q.where('station', station).orWhereIn('station', db('station_renames').where({ event_id: eventId, to_name: station }).select('from_name')))
      .whereNotNull('scanned_by');
  const own = await scans().where('scanned_by', scanner).first('id');
  const other = own === undefined ? undefined : await scans().whereNot('scanned_by', scanner).first('id');
  return own !== undefined && other === undefined ? scanner : undefined;
}

/**
 * `from` is now called `to`: the names that led to `from` lead to `to`, `to` is a station of
 * its own again if it once was renamed away, and `from` itself is kept only if it has scans
 * (a name with none has no history to carry). Idempotent: a rename sent twice changes nothing.
 */
export async function renameStation(trx: Trx, eventId: number, from: string, to: string, now: string): Promise<void> {
  await trx('station_renames').where({ event_id: eventId, to_name: from }).update({ to_name: to });
  await trx('station_renames').where({ event_id: eventId, from_name: to }).del();
  const scanned = await trx('checkins').where({ event_id: eventId, station: from }).first('id');
  if (scanned === undefined) return;
  await trx('station_renames').insert({ event_id: eventId, from_name: from, to_name: to, created: now }).onConflict(['event_id', 'from_name']).merge(['to_name']);
}
