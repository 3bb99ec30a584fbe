import { useTranslation } from 'react-i18next';
import type { Api } from '../api';
import { CUSTOM_QUESTION_TYPES, REGISTRATION_TYPE_KINDS } from '../../../core/messages';
import { withoutBlanks } from './forms';
import { RecordSection, type FieldSpec } from './record-section';
import { toFormDatetime, useList } from './use-list';
import { utcToZoneInput, wallTime, zoneInputToUtc } from '../event-clock';
import type { PromotionCodeRecord, QuestionRecord, RegistrationTypeRecord, SessionRecord, TrackRecord } from './wire';

const yesNo = (value: boolean | undefined, t: (key: string) => string) => (value ? t('yes') : '');

const ORDER_FIELDS = ['price', 'quantity', 'minorder', 'maxorder', 'starts', 'ends'] as const;

/** On an edit, an emptied number or date is sent as null, so it is cleared rather than kept. */
function registrationTypeBody(values: Record<string, any>, creating: boolean) {
  if (creating) return withoutBlanks(values);
  const body: Record<string, unknown> = { ...values };
  for (const f of ORDER_FIELDS) if (body[f] === '' || body[f] === undefined || Number.isNaN(body[f])) body[f] = null;
  return body;
}

/** A registration type's sales period is a wall time on the event's clock, as the event's own start and end are. */
export function RegistrationTypesSection({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const fields: FieldSpec[] = [
    { name: 'name', label: t('fields.name'), kind: 'text', required: true },
    { name: 'type', label: t('fields.kind'), kind: 'select', options: REGISTRATION_TYPE_KINDS.map((k) => ({ value: k, label: t(`kinds.${k}`) })) },
    { name: 'description', label: t('fields.description'), kind: 'textarea', required: true },
    { name: 'price', label: t('fields.price'), kind: 'number' },
    { name: 'quantity', label: t('fields.quantity'), kind: 'number' },
    { name: 'minorder', label: t('fields.minorder'), kind: 'number' },
    { name: 'maxorder', label: t('fields.maxorder'), kind: 'number' },
    { name: 'starts', label: t('fields.salesStartIn', { zone: timezone }), kind: 'datetime' },
    { name: 'ends', label: t('fields.salesEndIn', { zone: timezone }), kind: 'datetime' },
    { name: 'door', label: t('fields.doorSales'), kind: 'check' },
    { name: 'online', label: t('fields.onlineSales'), kind: 'check' },
    { name: 'attention', label: t('fields.attention'), kind: 'check' },
  ];
  return (
    <RecordSection<RegistrationTypeRecord>
      api={api}
      path={`/events/${eventId}/registration_types`}
      title={t('tabs.registrationTypes')}
      noun={t('nouns.registrationType')}
      fields={fields}
      blank={{ name: '', type: 'ticket', description: '', price: undefined, quantity: undefined, minorder: undefined, maxorder: undefined, starts: '', ends: '', door: true, online: false, attention: false }}
      toBody={registrationTypeBody}
      toForm={(r) => ({ ...r, price: r.price === null ? undefined : Number(r.price), starts: toFormDatetime(r.starts), ends: toFormDatetime(r.ends) })}
      editable
      columns={[
        { label: t('fields.name'), cell: (r) => r.name },
        { label: t('fields.kind'), cell: (r) => t(`kinds.${r.type}`) },
        { label: t('fields.price'), cell: (r) => r.price ?? '' },
        { label: t('fields.quantity'), cell: (r) => r.quantity ?? '' },
        { label: t('fields.doorSales'), cell: (r) => yesNo(r.door, t) },
        { label: t('fields.attention'), cell: (r) => yesNo(r.attention, t) },
      ]}
    />
  );
}

/** Choices are typed one per line: the quickest way to enter a list of answers. */
function questionBody(values: Record<string, any>) {
  const choices = String(values.choices ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((answer) => ({ answer }));
  return { question: values.question, type: values.type, show_at_door: Boolean(values.show_at_door), ...(values.type === 'text' ? {} : { choices }) };
}

export function QuestionsSection({ api, eventId }: { api: Api; eventId: number }) {
  const { t } = useTranslation('console');
  const fields: FieldSpec[] = [
    { name: 'question', label: t('fields.question'), kind: 'text', required: true },
    { name: 'type', label: t('fields.kind'), kind: 'select', options: CUSTOM_QUESTION_TYPES.map((k) => ({ value: k, label: t(`questionKinds.${k}`) })), createOnly: true },
    { name: 'choices', label: t('fields.choices'), kind: 'textarea', createOnly: true },
    { name: 'show_at_door', label: t('fields.showAtDoor'), kind: 'check' },
  ];
  return (
    <RecordSection<QuestionRecord>
      api={api}
      path={`/events/${eventId}/custom_questions`}
      title={t('tabs.questions')}
      noun={t('nouns.question')}
      fields={fields}
      blank={{ question: '', type: 'radio', choices: '', show_at_door: false }}
      // An edit changes the text and whether the door sees the answers (PUT takes no type or choices).
      toBody={(values, creating) => (creating ? questionBody(values) : { question: values.question, show_at_door: Boolean(values.show_at_door) })}
      editable
      columns={[
        { label: t('fields.question'), cell: (r) => r.question },
        { label: t('fields.kind'), cell: (r) => t(`questionKinds.${r.type}`) },
        { label: t('fields.choiceList'), cell: (r) => r.choices.map((c) => c.answer).join(' · ') },
        { label: t('fields.showAtDoor'), cell: (r) => yesNo(r.show_at_door, t) },
      ]}
    />
  );
}

/** Session, track and promotion times are UTC in the API: shown and typed on the event's clock. */
function zonedTimes(values: Record<string, any>, timezone: string) {
  const at = (v: unknown) => (typeof v === 'string' && v !== '' ? zoneInputToUtc(v, timezone) : v);
  return { ...values, starts: at(values.starts), ends: at(values.ends) };
}

export function TracksSection({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const zone = { zone: timezone };
  return (
    <RecordSection<TrackRecord>
      api={api}
      path={`/events/${eventId}/sessions/tracks`}
      title={t('tabs.tracks')}
      noun={t('nouns.track')}
      fields={[
        { name: 'name', label: t('fields.name'), kind: 'text', required: true },
        { name: 'starts', label: t('fields.startsIn', zone), kind: 'datetime', required: true },
        { name: 'ends', label: t('fields.endsIn', zone), kind: 'datetime', required: true },
      ]}
      blank={{ name: '', starts: '', ends: '' }}
      toBody={(values) => withoutBlanks(zonedTimes(values, timezone))}
      toForm={(r) => ({ name: r.name, starts: utcToZoneInput(r.starts, timezone), ends: utcToZoneInput(r.ends, timezone) })}
      editable
      deletable
      columns={[
        { label: t('fields.name'), cell: (r) => r.name },
        { label: t('fields.startsIn', zone), cell: (r) => wallTime(utcToZoneInput(r.starts, timezone)) },
        { label: t('fields.endsIn', zone), cell: (r) => wallTime(utcToZoneInput(r.ends, timezone)) },
      ]}
    />
  );
}

function sessionBody(values: Record<string, any>, creating: boolean) {
  const { tags, track_id, capacity, ...rest } = values;
  return withoutBlanks({
    ...rest,
    tags: String(tags ?? '').split(',').map((tag) => tag.trim()).filter(Boolean),
    track_id: track_id === '' || track_id === undefined ? null : Number(track_id),
    ...(creating ? { capacity } : {}),
  });
}

export function SessionsSection({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const zone = { zone: timezone };
  const { items: tracks } = useList<TrackRecord>(api, `/events/${eventId}/sessions/tracks`);
  const fields: FieldSpec[] = [
    { name: 'name', label: t('fields.name'), kind: 'text', required: true },
    { name: 'track_id', label: t('fields.track'), kind: 'select', options: [{ value: '', label: t('noTrack') }, ...(tracks ?? []).map((tr) => ({ value: tr.id, label: tr.name }))] },
    { name: 'starts', label: t('fields.startsIn', zone), kind: 'datetime', required: true },
    { name: 'ends', label: t('fields.endsIn', zone), kind: 'datetime', required: true },
    { name: 'capacity', label: t('fields.capacity'), kind: 'number', createOnly: true, hint: t('fields.capacityHint') },
    { name: 'overbook_capacity', label: t('fields.overbook'), kind: 'number', hint: t('fields.overbookHint') },
    { name: 'tags', label: t('fields.tags'), kind: 'text' },
    { name: 'access_control', label: t('fields.accessControl'), kind: 'check' },
    { name: 'auto_registration', label: t('fields.autoRegistration'), kind: 'check' },
    { name: 'hidden_session', label: t('fields.hidden'), kind: 'check' },
  ];
  return (
    <RecordSection<SessionRecord>
      api={api}
      path={`/events/${eventId}/sessions`}
      title={t('tabs.sessions')}
      noun={t('nouns.session')}
      fields={fields}
      blank={{ name: '', track_id: '', starts: '', ends: '', capacity: undefined, overbook_capacity: undefined, tags: '', access_control: false, auto_registration: false, hidden_session: false }}
      toBody={(values, creating) => sessionBody(zonedTimes(values, timezone), creating)}
      toForm={(r) => ({ ...r, starts: utcToZoneInput(r.starts, timezone), ends: utcToZoneInput(r.ends, timezone), tags: r.tags.join(', '), track_id: r.track_id ?? '' })}
      editable
      deletable
      columns={[
        { label: t('fields.name'), cell: (r) => r.name },
        { label: t('fields.startsIn', zone), cell: (r) => wallTime(utcToZoneInput(r.starts, timezone)) },
        { label: t('fields.endsIn', zone), cell: (r) => wallTime(utcToZoneInput(r.ends, timezone)) },
        { label: t('fields.track'), cell: (r) => tracks?.find((tr) => tr.id === r.track_id)?.name ?? '' },
        { label: t('fields.capacity'), cell: (r) => r.capacity },
        { label: t('fields.accessControl'), cell: (r) => yesNo(r.access_control, t) },
      ]}
    />
  );
}

function promotionBody(values: Record<string, any>, timezone: string) {
  const types = Array.isArray(values.registration_types) ? values.registration_types : values.registration_types ? [values.registration_types] : [];
  const zoned = zonedTimes(values, timezone);
  return { ...withoutBlanks(values), registration_types: types.map(Number), starts: zoned.starts || null, ends: zoned.ends || null };
}

export function PromotionCodesSection({ api, eventId, timezone }: { api: Api; eventId: number; timezone: string }) {
  const { t } = useTranslation('console');
  const zone = { zone: timezone };
  const { items: types } = useList<RegistrationTypeRecord>(api, `/events/${eventId}/registration_types`);
  const fields: FieldSpec[] = [
    { name: 'code', label: t('fields.code'), kind: 'text', required: true },
    { name: 'discount_type', label: t('fields.discountType'), kind: 'select', options: [{ value: 'percent', label: t('discount.percent') }, { value: 'flat', label: t('discount.flat') }] },
    { name: 'discount_amount', label: t('fields.discountAmount'), kind: 'number', required: true },
    { name: 'quantity', label: t('fields.uses'), kind: 'number', required: true },
    { name: 'starts', label: t('fields.validFromIn', zone), kind: 'datetime' },
    { name: 'ends', label: t('fields.validUntilIn', zone), kind: 'datetime' },
    { name: 'registration_types', label: t('fields.onlyFor'), kind: 'multiselect', options: (types ?? []).map((rt) => ({ value: String(rt.id), label: rt.name })) },
    { name: 'available_only', label: t('fields.availableOnly'), kind: 'check' },
  ];
  return (
    <RecordSection<PromotionCodeRecord>
      api={api}
      path={`/events/${eventId}/promotion_codes`}
      title={t('tabs.promotionCodes')}
      noun={t('nouns.promotionCode')}
      fields={fields}
      blank={{ code: '', discount_type: 'percent', discount_amount: undefined, quantity: undefined, starts: '', ends: '', registration_types: [], available_only: false }}
      toBody={(values) => promotionBody(values, timezone)}
      toForm={(r) => ({ ...r, discount_amount: Number(r.discount_amount), starts: utcToZoneInput(r.starts, timezone), ends: utcToZoneInput(r.ends, timezone), registration_types: r.registration_types.map(String) })}
      editable
      deletable
      columns={[
        { label: t('fields.code'), cell: (r) => r.code },
        { label: t('fields.discountAmount'), cell: (r) => (r.discount_type === 'percent' ? `${r.discount_amount} %` : r.discount_amount) },
        { label: t('fields.uses'), cell: (r) => `${r.used} / ${r.quantity}` },
        { label: t('fields.validUntilIn', zone), cell: (r) => wallTime(utcToZoneInput(r.ends, timezone)) },
      ]}
    />
  );
}
