import type { Knex } from 'knex';

// A venue that outlives its box-office laptop (issue 47). Per local event: which epoch of the
// venue this laptop knows, whether it is the venue's upstream or a follower, and the venue's
// credential (the event's sync only, door role): kept in full like syncs.upstream_key (this
// laptop presents it to the venue's other laptops) and as its SHA-256, which Authorization
// headers are looked up by. The members are the laptops that follow the event, as the
// upstream heard them (on the upstream) or as it answered them (on a follower).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('venues', (t) => {
    t.increments('id').primary();
    t.string('uid', 36).notNullable().unique();
    t.datetime('created').notNullable();
    t.datetime('modified').notNullable();
    t.integer('event_id').unsigned().notNullable().unique().references('id').inTable('events').onDelete('CASCADE');
    t.integer('epoch').notNullable().defaultTo(1);
    // 'upstream' | 'follower'
    t.string('part', 16).notNullable();
    t.string('credential', 255).notNullable();
    t.string('credential_hash', 64).notNullable().unique();
    // What the console shows about the venue (a takeover lost to another laptop), this laptop's words.
    t.string('note', 500);
  });
  await knex.schema.createTable('venue_members', (t) => {
    t.increments('id').primary();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('name', 64).notNullable();
    // Its LAN HTTPS base (`https://10.0.0.2:8788/api/v1`).
    t.string('url', 256).notNullable();
    // 64 lowercase hex digits: its certificate's or its authority's SHA-256, which a connection to it is pinned to.
    t.string('fingerprint', 64).notNullable();
    // The member's own id of the event (ids differ per laptop; uids do not).
    t.integer('remote_event_id').notNullable();
    t.string('last_seen_at', 32).notNullable();
    t.unique(['event_id', 'url']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('venue_members');
  await knex.schema.dropTable('venues');
}
