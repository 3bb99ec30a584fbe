import type { Knex } from 'knex';

// A pin on another laptop's authority is checked by signature (issue 42): the follower keeps
// the authority's certificate (PEM, public: GET /ca.crt serves it) that the pin named when
// following, and connects with it as the only trust anchor. Null: a pin on the certificate
// itself, no pin, or a sync followed before this (the authority is learned at its next cycle).
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syncs', (t) => {
    t.text('authority_pem');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('syncs', (t) => {
    t.dropColumn('authority_pem');
  });
}
