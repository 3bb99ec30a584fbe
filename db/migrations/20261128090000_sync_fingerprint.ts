import type { Knex } from 'knex';

// Following another laptop over the LAN (issue 37): its certificate is trusted by pinning it.
// The SHA-256 (64 lowercase hex digits) of the upstream's certificate or of its authority, as
// given when following; null where the system's own trust decides (a central with a public
// certificate, or plain HTTP).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syncs', (t) => {
    t.string('fingerprint', 64);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syncs', (t) => {
    t.dropColumn('fingerprint');
  });
}
