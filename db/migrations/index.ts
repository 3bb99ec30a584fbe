import type { Knex } from 'knex';
import * as initialSchema from './20261122000000_initial_schema';
import * as guestListOrderIndex from './20261122010000_guest_list_order_index';
import * as statsGuestIndexes from './20261123000000_stats_guest_indexes';
import * as statsCheckinIndexes from './20261123010000_stats_checkin_indexes';
import * as dropGuestCheckedInIndex from './20261123020000_drop_guest_checked_in_index';
import * as scanUidsPerEvent from './20261123030000_scan_uids_per_event';
import * as attentionAndNotes from './20261123040000_attention_and_notes';
import * as eventImporting from './20261123040000_event_importing';
import * as centralServer from './20261123050000_central_server';
import * as sync from './20261123100000_sync';
import * as rolesAndFirstRun from './20261123160000_roles_and_first_run';
import * as vacuumBusyTables from './20261126000000_vacuum_busy_tables';
import * as scanTimesAsInstants from './20261126100000_scan_times_as_instants';
import * as eventGuestCounts from './20261126110000_event_guest_counts';
import * as checkinsByGuest from './20261126120000_checkins_by_guest';
import * as foreignKeysIndexed from './20261126130000_foreign_keys_indexed';
import * as guestSearchFullText from './20261126140000_guest_search_full_text';
import * as guestIndexesOfTheFew from './20261127000000_guest_indexes_of_the_few';
import * as badgePrints from './20261128000000_badge_prints';
import * as guestSearchFolded from './20261128000000_guest_search_folded';
import * as questionShowAtDoor from './20261128010000_question_show_at_door';
import * as syncFingerprint from './20261128090000_sync_fingerprint';
import * as mergeJournal from './20261128120000_merge_journal';
import * as supervisorAndGuestTableIndexes from './20261128120000_supervisor_and_guest_table_indexes';
import * as guestSearchOwnLetters from './20261201000000_guest_search_own_letters';
import * as syncAuthority from './20261201210000_sync_authority';
import * as stationRenames from './20261202000000_station_renames';
import * as venues from './20261202100000_venues';
import * as syncUpstreamVersions from './20261202190000_sync_upstream_versions';

/**
 * Migrations are imported, not read from a folder, so the bundled app carries them.
 * Add each new migration here, in order.
 */
const migrations: Record<string, Knex.Migration> = {
  '20261122000000_initial_schema': initialSchema,
  '20261122010000_guest_list_order_index': guestListOrderIndex,
  '20261123000000_stats_guest_indexes': statsGuestIndexes,
  '20261123010000_stats_checkin_indexes': statsCheckinIndexes,
  '20261123020000_drop_guest_checked_in_index': dropGuestCheckedInIndex,
  '20261123030000_scan_uids_per_event': scanUidsPerEvent,
  '20261123040000_attention_and_notes': attentionAndNotes,
  '20261123040000_event_importing': eventImporting,
  '20261123050000_central_server': centralServer,
  '20261123100000_sync': sync,
  '20261123160000_roles_and_first_run': rolesAndFirstRun,
  '20261126000000_vacuum_busy_tables': vacuumBusyTables,
  '20261126100000_scan_times_as_instants': scanTimesAsInstants,
  '20261126110000_event_guest_counts': eventGuestCounts,
  '20261126120000_checkins_by_guest': checkinsByGuest,
  '20261126130000_foreign_keys_indexed': foreignKeysIndexed,
  '20261126140000_guest_search_full_text': guestSearchFullText,
  '20261127000000_guest_indexes_of_the_few': guestIndexesOfTheFew,
  '20261128000000_badge_prints': badgePrints,
  '20261128000000_guest_search_folded': guestSearchFolded,
  '20261128010000_question_show_at_door': questionShowAtDoor,
  '20261128090000_sync_fingerprint': syncFingerprint,
  '20261128120000_merge_journal': mergeJournal,
  '20261128120000_supervisor_and_guest_table_indexes': supervisorAndGuestTableIndexes,
  '20261201000000_guest_search_own_letters': guestSearchOwnLetters,
  '20261201210000_sync_authority': syncAuthority,
  '20261202000000_station_renames': stationRenames,
  '20261202100000_venues': venues,
  '20261202190000_sync_upstream_versions': syncUpstreamVersions,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
