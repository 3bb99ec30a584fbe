import type { Knex } from 'knex';
import { dialectOf } from '../dialect';

// Every page of a guest list carries the count of the event's guests. On SQLite that count
// walked the event's whole index (4 ms at 100,000 guests), twice the cost of the page itself
// on a full sync. Triggers keep it instead, whichever path adds, moves (a CSV import's reveal)
// or removes guests. Only where the dialect keeps counts (see Dialect.keepsGuestCounts).
const TRIGGERS = ['event_guest_counts_event', 'event_guest_counts_added', 'event_guest_counts_removed', 'event_guest_counts_moved'];

export async function up(knex: Knex): Promise<void> {
  if (!dialectOf(knex).keepsGuestCounts) return;
  await knex.schema.createTable('event_guest_counts', (t) => {
    t.integer('event_id').primary().references('id').inTable('events').onDelete('CASCADE');
    t.integer('guests').notNullable();
  });
  await knex.raw('insert into event_guest_counts (event_id, guests) select e.id, (select count(*) from guests g where g.event_id = e.id) from events e');
  await knex.raw('create trigger event_guest_counts_event after insert on events begin insert into event_guest_counts (event_id, guests) values (new.id, 0); end');
  await knex.raw('create trigger event_guest_counts_added after insert on guests begin update event_guest_counts set guests = guests + 1 where event_id = new.event_id; end');
  await knex.raw('create trigger event_guest_counts_removed after delete on guests begin update event_guest_counts set guests = guests - 1 where event_id = old.event_id; end');
  await knex.raw(`create trigger event_guest_counts_moved after update of event_id on guests when new.event_id is not old.event_id begin
    update event_guest_counts set guests = guests - 1 where event_id = old.event_id;
    update event_guest_counts set guests = guests + 1 where event_id = new.event_id;
  end`);
}

export async function down(knex: Knex): Promise<void> {
  if (!dialectOf(knex).keepsGuestCounts) return;
  for (const trigger of TRIGGERS) await knex.raw(`drop trigger if exists ${trigger}`);
  await knex.schema.dropTableIfExists('event_guest_counts');
}
