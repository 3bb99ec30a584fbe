import type { TFunction } from 'i18next';
import { API_BASE, detailOf, downloadFrom, OfflineError, type Api } from './api';

/** What POST /events/import reports: counts per table, check-ins added, conflicts. */
export interface ImportReport {
  event_id?: number;
  event_created?: boolean;
  created?: Record<string, number>;
  updated?: Record<string, number>;
  unchanged?: Record<string, number>;
  skipped?: Record<string, number>;
  checkins_added?: number;
  conflicts?: unknown[];
  double_admissions?: unknown[];
}

/** Downloads the event file in a browser; answers its name and size. */
export function downloadEventFile(api: Api, eventId: number, eventName: string): Promise<{ name: string; bytes: number }> {
  return downloadFrom(api, `/events/${eventId}/export`, `${eventName.replace(/[^\w.-]+/g, '-').replace(/^-|-$/g, '') || 'event'}.doorlist`);
}

/** Sends an event file as the request body, as the import endpoint wants it. */
export async function uploadEventFile(api: Api, file: Blob, groupId?: number): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await fetch(`${API_BASE}/events/import${groupId ? `?group_id=${groupId}` : ''}`, {
      method: 'POST',
      headers: { authorization: `Token ${api.token}`, 'content-type': 'application/octet-stream' },
      body: file,
    });
  } catch {
    throw new OfflineError();
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: shown as it is.
  }
  return { status: res.status, body };
}

function total(counts: Record<string, number> | undefined): number {
  return Object.values(counts ?? {}).reduce((sum, n) => sum + (Number(n) || 0), 0);
}

/** One line per kind of change, for the result dialog, in the station's language. */
export function importSummary(report: ImportReport, t: TFunction<'door'>): string[] {
  const guests = (counts?: Record<string, number>) => counts?.guests ?? 0;
  return [
    report.event_created ? t('eventFile.created') : t('eventFile.merged'),
    t('eventFile.added', { count: total(report.created), guests: guests(report.created) }),
    t('eventFile.updated', { count: total(report.updated), guests: guests(report.updated) }),
    t('eventFile.unchanged', { count: total(report.unchanged) }),
    t('eventFile.skipped', { count: total(report.skipped) }),
    t('eventFile.checkinsAdded', { count: report.checkins_added ?? 0 }),
    ...(report.conflicts?.length ? [t('eventFile.conflicts', { count: report.conflicts.length })] : []),
    ...(report.double_admissions?.length ? [t('eventFile.doubleAdmissions', { count: report.double_admissions.length })] : []),
  ];
}
