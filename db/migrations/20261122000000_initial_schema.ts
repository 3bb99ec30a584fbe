import type { Knex } from 'knex';

/** Every record carries an integer id, a uid that survives export/import, and created/modified. */
function recordColumns(t: Knex.CreateTableBuilder, uidLength = 36): void {
  t.increments('id').primary();
  t.string('uid', uidLength).notNullable().unique();
  t.datetime('created').notNullable();
  t.datetime('modified').notNullable();
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('groups', (t) => {
    recordColumns(t);
    t.string('name', 255).notNullable();
    t.string('email', 254);
    t.string('phone', 64);
    t.string('website', 255);
    t.string('type', 32).notNullable().defaultTo('Event Planner');
    t.integer('parent_id').unsigned().references('id').inTable('groups').onDelete('CASCADE');
    t.index(['parent_id']);
    t.index(['modified']);
  });

  await knex.schema.createTable('users', (t) => {
    recordColumns(t);
    t.string('username', 150).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.boolean('is_admin').notNullable().defaultTo(false);
    // A non-admin user sees this group and its sub-groups, exactly like an API key of it.
    t.integer('group_id').unsigned().references('id').inTable('groups').onDelete('SET NULL');
  });

  await knex.schema.createTable('tokens', (t) => {
    recordColumns(t);
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('token_hash', 64).notNullable().unique();
    t.datetime('expires').notNullable();
  });

  await knex.schema.createTable('api_keys', (t) => {
    recordColumns(t);
    t.integer('group_id').unsigned().notNullable().references('id').inTable('groups').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_prefix', 16).notNullable();
    t.index(['group_id']);
  });

  await knex.schema.createTable('events', (t) => {
    recordColumns(t);
    t.integer('group_id').unsigned().notNullable().references('id').inTable('groups').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    // Wall-clock times in the event's own timezone, `YYYY-MM-DDThh:mm:ss`.
    t.string('starts', 19).notNullable();
    t.string('ends', 19).notNullable();
    t.string('timezone', 64).notNullable();
    t.index(['group_id']);
    t.index(['modified']);
  });

  await knex.schema.createTable('registration_types', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('type', 16).notNullable().defaultTo('ticket');
    t.string('name', 255).notNullable();
    t.text('description').notNullable();
    t.string('starts', 19);
    t.string('ends', 19);
    t.integer('minorder');
    t.integer('maxorder');
    t.decimal('price', 12, 2);
    t.integer('quantity');
    t.boolean('door').notNullable().defaultTo(false);
    t.boolean('online').notNullable().defaultTo(false);
    t.string('source', 32).notNullable().defaultTo('api');
    t.integer('objstatus').notNullable().defaultTo(1);
    t.check('?? >= 0', ['quantity'], 'registration_types_quantity_not_negative');
    t.check('?? >= 0', ['price'], 'registration_types_price_not_negative');
    t.check('?? >= 0', ['minorder'], 'registration_types_minorder_not_negative');
    t.check('?? <= ??', ['minorder', 'maxorder'], 'registration_types_minorder_within_maxorder');
    t.index(['event_id', 'modified']);
  });

  await knex.schema.createTable('custom_questions', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.text('question').notNullable();
    t.string('type', 16).notNullable();
    t.integer('objstatus').notNullable().defaultTo(1);
    t.index(['event_id', 'modified']);
  });

  await knex.schema.createTable('question_choices', (t) => {
    recordColumns(t);
    t.integer('question_id').unsigned().notNullable().references('id').inTable('custom_questions').onDelete('CASCADE');
    t.text('answer').notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.index(['question_id']);
  });

  await knex.schema.createTable('guests', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('registration_type_id').unsigned().notNullable().references('id').inTable('registration_types');
    t.string('first_name', 255).notNullable();
    t.string('last_name', 255).notNullable();
    t.string('email', 254).notNullable();
    t.string('prefix', 64);
    t.string('suffix', 64);
    t.string('phone', 64);
    t.string('cell_phone', 64);
    t.string('company', 255);
    t.string('job_title', 255);
    t.string('work_phone', 64);
    t.string('blog', 255);
    t.string('website', 255);
    t.string('barcode', 128).notNullable();
    t.string('nfc_tag', 128);
    t.integer('objstatus').notNullable().defaultTo(1);
    t.string('selfie', 512).notNullable().defaultTo('');
    t.string('source', 32).notNullable().defaultTo('api');
    // Denormalised door state, written in the same transaction as the check-in that changes it.
    t.datetime('checked_in_at');
    t.unique(['event_id', 'barcode'], { indexName: 'guests_event_barcode_unique' });
    t.unique(['event_id', 'nfc_tag'], { indexName: 'guests_event_nfc_tag_unique' });
    t.index(['event_id', 'modified']);
    t.index(['event_id', 'checked_in_at']);
    t.index(['registration_type_id']);
  });

  // Derived search index (not a record, so no uid): one row per word of a guest's name,
  // e-mail, company, barcode and NFC tag, so `search=` is an index range scan at 100k guests.
  await knex.schema.createTable('guest_search_terms', (t) => {
    t.increments('id').primary();
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.string('term', 255).notNullable();
    t.index(['event_id', 'term']);
    t.index(['guest_id']);
  });

  await knex.schema.createTable('guest_answers', (t) => {
    recordColumns(t);
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.integer('question_id').unsigned().notNullable().references('id').inTable('custom_questions').onDelete('CASCADE');
    t.integer('choice_id').unsigned().references('id').inTable('question_choices').onDelete('CASCADE');
    t.text('text_answer');
    t.index(['guest_id']);
    t.index(['question_id']);
  });

  await knex.schema.createTable('tracks', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('name', 255).notNullable();
    t.string('starts', 19).notNullable();
    t.string('ends', 19).notNullable();
    t.index(['event_id', 'modified']);
  });

  await knex.schema.createTable('sessions', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('track_id').unsigned().references('id').inTable('tracks').onDelete('SET NULL');
    t.string('name', 255).notNullable();
    t.string('starts', 19).notNullable();
    t.string('ends', 19).notNullable();
    t.boolean('access_control').notNullable().defaultTo(false);
    t.integer('capacity').notNullable().defaultTo(10000);
    t.boolean('auto_registration').notNullable().defaultTo(false);
    t.integer('overbook_capacity').notNullable().defaultTo(0);
    t.boolean('hidden_session').notNullable().defaultTo(false);
    t.boolean('overlap_enabled').notNullable().defaultTo(false);
    t.check('?? >= 0', ['capacity'], 'sessions_capacity_not_negative');
    t.check('?? >= 0', ['overbook_capacity'], 'sessions_overbook_not_negative');
    t.index(['event_id', 'modified']);
  });

  await knex.schema.createTable('session_tags', (t) => {
    recordColumns(t);
    t.integer('session_id').unsigned().notNullable().references('id').inTable('sessions').onDelete('CASCADE');
    t.string('tag', 255).notNullable();
    t.integer('position').notNullable().defaultTo(0);
    t.unique(['session_id', 'tag']);
  });

  await knex.schema.createTable('session_registrations', (t) => {
    recordColumns(t);
    t.integer('session_id').unsigned().notNullable().references('id').inTable('sessions').onDelete('CASCADE');
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.unique(['session_id', 'guest_id']);
    t.index(['guest_id']);
  });

  // Accepted scans. `uid` is the client's scan id (up to 64 characters) or a UUID.
  await knex.schema.createTable('checkins', (t) => {
    recordColumns(t, 64);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('guest_id').unsigned().notNullable().references('id').inTable('guests').onDelete('CASCADE');
    t.integer('session_id').unsigned().references('id').inTable('sessions').onDelete('CASCADE');
    t.string('direction', 8).notNullable().defaultTo('in');
    t.datetime('scanned_at').notNullable();
    t.string('station', 128);
    // Undo keeps the row (so the undo travels in event files) and marks it.
    t.datetime('undone_at');
    t.index(['event_id', 'modified']);
    t.index(['event_id', 'guest_id', 'session_id']);
    t.index(['event_id', 'session_id']);
    t.index(['event_id', 'scanned_at']);
  });

  // The first answer given to each client scan uid, so a replayed queued scan gets it again.
  await knex.schema.createTable('scan_replies', (t) => {
    recordColumns(t, 64);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.integer('status_code').notNullable();
    t.text('body').notNullable();
  });

  await knex.schema.createTable('promotion_codes', (t) => {
    recordColumns(t);
    t.integer('event_id').unsigned().notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('code', 64).notNullable();
    t.string('discount_type', 16).notNullable();
    t.decimal('discount_amount', 12, 2).notNullable();
    t.integer('quantity').notNullable();
    t.integer('used').notNullable().defaultTo(0);
    t.string('starts', 19);
    t.string('ends', 19);
    t.boolean('available_only').notNullable().defaultTo(false);
    t.unique(['event_id', 'code']);
    t.check('?? >= 0', ['quantity'], 'promotion_codes_quantity_not_negative');
    t.check('?? >= 0', ['discount_amount'], 'promotion_codes_amount_not_negative');
    t.index(['event_id', 'modified']);
  });

  await knex.schema.createTable('promotion_code_registration_types', (t) => {
    recordColumns(t);
    t.integer('promotion_code_id').unsigned().notNullable().references('id').inTable('promotion_codes').onDelete('CASCADE');
    t.integer('registration_type_id').unsigned().notNullable().references('id').inTable('registration_types').onDelete('CASCADE');
    t.unique(['promotion_code_id', 'registration_type_id']);
  });

  await knex.schema.createTable('outbox', (t) => {
    recordColumns(t);
    t.string('recipient', 254).notNullable();
    t.string('subject', 255).notNullable();
    t.text('body').notNullable();
    t.datetime('sent_at');
    t.text('error');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'outbox',
    'promotion_code_registration_types',
    'promotion_codes',
    'scan_replies',
    'checkins',
    'session_registrations',
    'session_tags',
    'sessions',
    'tracks',
    'guest_answers',
    'guest_search_terms',
    'guests',
    'question_choices',
    'custom_questions',
    'registration_types',
    'events',
    'api_keys',
    'tokens',
    'users',
    'groups',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}
