import type { Knex } from 'knex';

// Two guest indexes led by event_id held every guest for the few a query looks for: the
// inactive ones (the door's stats count them) and those with an NFC tag (unique per event).
// Every guest written, and every guest a CSV import moves into its event, rewrote both. Held
// partial, only those few rows enter them; the lookups they serve imply their WHERE.
const NFC_TAG_UNIQUE = 'guests_event_nfc_tag_unique';
const OBJSTATUS_INDEX = 'guests_event_objstatus_index';
const INACTIVE_INDEX = 'guests_event_inactive_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropUnique([], NFC_TAG_UNIQUE);
    t.dropIndex([], OBJSTATUS_INDEX);
  });
  await knex.schema.alterTable('guests', (t) => {
    // The same name, so a refusal is still told apart from the barcode's (db/repositories/guests.ts).
    t.unique(['event_id', 'nfc_tag'], { indexName: NFC_TAG_UNIQUE, predicate: knex.whereNotNull('nfc_tag') });
    // objstatus 2 is inactive; a literal, so SQLite's planner can prove a query's WHERE implies it.
    t.index(['event_id'], INACTIVE_INDEX, { predicate: knex.whereRaw('objstatus = 2') });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('guests', (t) => {
    t.dropIndex([], NFC_TAG_UNIQUE);
    t.dropIndex([], INACTIVE_INDEX);
  });
  await knex.schema.alterTable('guests', (t) => {
    t.unique(['event_id', 'nfc_tag'], { indexName: NFC_TAG_UNIQUE });
    t.index(['event_id', 'objstatus'], OBJSTATUS_INDEX);
  });
}
