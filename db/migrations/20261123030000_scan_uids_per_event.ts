import type { Knex } from 'knex';

// A scan uid is the client's id within one event: unique per (event_id, uid), so a uid used in
// one group's event is neither refused nor revealed in another group's event (issue 11).
// scan_replies keeps the answer's body only: its `status` names the outcome and the server
// chooses the HTTP status, so the database holds no HTTP. Remembered "Session not found."
// answers (no scan status) are dropped: a replay of one is simply decided again.
export async function up(knex: Knex): Promise<void> {
  await knex('scan_replies').whereNot('body', 'like', '%"status":%').delete();
  await knex.schema.alterTable('checkins', (t) => {
    t.dropUnique(['uid']);
    t.unique(['event_id', 'uid'], { indexName: 'checkins_event_uid_unique' });
  });
  await knex.schema.alterTable('scan_replies', (t) => {
    t.dropUnique(['uid']);
    t.unique(['event_id', 'uid'], { indexName: 'scan_replies_event_uid_unique' });
    t.dropColumn('status_code');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('scan_replies', (t) => {
    t.integer('status_code').notNullable().defaultTo(0);
    t.dropUnique([], 'scan_replies_event_uid_unique');
    t.unique(['uid']);
  });
  await knex.schema.alterTable('checkins', (t) => {
    t.dropUnique([], 'checkins_event_uid_unique');
    t.unique(['uid']);
  });
}
