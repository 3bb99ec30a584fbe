import type { Knex } from 'knex';

// ON DELETE CASCADE / SET NULL find referring rows by their foreign key: without an index led
// by it, a read of the whole table with the writer held (deleting an event read every scan
// answer). Big tables get an index their writes already fill or only rare rows enter.
const SCAN_REPLIES_OLD = 'scan_replies_uid_event_unique';
const SCAN_REPLIES_NEW = 'scan_replies_event_uid_unique';

// Only rows that refer to something enter these: a door scan has no session, most answers no choice.
const PARTIAL = [
  { table: 'checkins', column: 'session_id' },
  { table: 'guest_answers', column: 'choice_id' },
];
const PLAIN = [
  { table: 'tokens', column: 'user_id' },
  { table: 'users', column: 'group_id' },
  { table: 'sessions', column: 'track_id' },
  { table: 'promotion_code_registration_types', column: 'registration_type_id' },
];

const indexName = (table: string, column: string) => `${table}_${column}_index`;

export async function up(knex: Knex): Promise<void> {
  // The same unique pairs, event first: every scan's lookup (event and uid) uses it as before.
  await knex.schema.alterTable('scan_replies', (t) => {
    t.unique(['event_id', 'uid'], { indexName: SCAN_REPLIES_NEW });
  });
  await knex.schema.alterTable('scan_replies', (t) => {
    t.dropUnique([], SCAN_REPLIES_OLD);
  });
  for (const { table, column } of PARTIAL) {
    await knex.schema.alterTable(table, (t) => {
      t.index([column], indexName(table, column), { predicate: knex.whereNotNull(column) });
    });
  }
  for (const { table, column } of PLAIN) {
    await knex.schema.alterTable(table, (t) => {
      t.index([column], indexName(table, column));
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table, column } of [...PARTIAL, ...PLAIN]) {
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex([], indexName(table, column));
    });
  }
  await knex.schema.alterTable('scan_replies', (t) => {
    t.unique(['uid', 'event_id'], { indexName: SCAN_REPLIES_OLD });
  });
  await knex.schema.alterTable('scan_replies', (t) => {
    t.dropUnique([], SCAN_REPLIES_NEW);
  });
}
