import { useCallback, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { API_BASE, detailOf, OfflineError, type Api } from '../api';
import { desktop } from '../desktop';
import type { ScanResult } from '../types';

export interface BadgePrintSettings {
  station: string;
  /** Two badges each time (one for the guest, one for a sleeve or a bag). */
  printTwice: boolean;
  /** The desktop app's printer, printed to without a dialog; empty: ask each time. */
  printer: string;
}

/**
 * A PDF of badges from the server, which records each print (station, who, when). With
 * `selection` it is POSTed as JSON (a selection longer than a URL carries).
 */
export async function fetchBadge(api: Api, path: string, selection?: Record<string, unknown>): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(API_BASE + path, {
      method: selection ? 'POST' : 'GET',
      headers: { authorization: `Token ${api.token}`, ...(selection ? { 'content-type': 'application/json' } : {}) },
      body: selection ? JSON.stringify(selection) : undefined,
    });
  } catch {
    throw new OfflineError();
  }
  if (!res.ok) throw new Error(detailOf(await res.json().catch(() => undefined)) ?? `The server answered ${res.status}.`);
  return res.blob();
}

/**
 * The browser's print dialog on a PDF: a frame off screen loads it and prints it, and the
 * promise settles once print() has returned (a browser holds it while its dialog is open), so
 * a second copy's dialog follows the first instead of two PDF viewers loading at once. The
 * frame stays a minute, as some browsers read the document while their dialog is open.
 */
export function printInBrowser(pdf: Blob): Promise<void> {
  const url = URL.createObjectURL(pdf);
  const frame = document.createElement('iframe');
  frame.className = 'print-frame';
  frame.dataset.testid = 'badge-print-frame';
  frame.title = 'badge';
  frame.src = url;
  return new Promise((resolve) => {
    frame.addEventListener(
      'load',
      () => {
        frame.contentWindow?.print();
        resolve();
      },
      { once: true },
    );
    document.body.append(frame);
    setTimeout(() => {
      frame.remove();
      URL.revokeObjectURL(url);
      resolve();
    }, 60_000);
  });
}

/** Prints a PDF: silently on the desktop app's chosen printer, else through the print dialog. */
export async function printPdf(pdf: Blob, printer: string): Promise<void> {
  if (desktop?.printBadge && printer) {
    const outcome = await desktop.printBadge({ pdf: new Uint8Array(await pdf.arrayBuffer()), printer });
    if (!outcome.printed) throw new Error(outcome.error ?? 'The printer refused the badge.');
    return;
  }
  await printInBrowser(pdf);
}

/**
 * Prints one guest's badge (twice if the station says so), each copy asked of the server so
 * the print log counts every badge made. Says how it went through `notify`.
 */
export function useBadgePrinter(api: Api, eventId: number, settings: BadgePrintSettings, notify: (message: string) => void) {
  const { t } = useTranslation('badges');
  return useCallback(
    async (guestId: number, name: string) => {
      const copies = settings.printTwice ? 2 : 1;
      try {
        for (let copy = 0; copy < copies; copy++) {
          const pdf = await fetchBadge(api, `/events/${eventId}/guests/${guestId}/badge.pdf?station=${encodeURIComponent(settings.station)}`);
          await printPdf(pdf, settings.printer);
        }
        notify(t('door.sent', { name, count: copies }));
      } catch (err) {
        notify(err instanceof OfflineError ? t('door.needsServer') : t('door.failed', { message: (err as Error).message }));
      }
    },
    [api, eventId, settings.printTwice, settings.printer, settings.station, notify, t],
  );
}

/**
 * "Print on check-in": each guest admitted at the event door (not a session, not a queued
 * replay, not decided offline, which the server could not print for) gets a badge, once.
 */
export function usePrintOnCheckIn(result: ScanResult | undefined, enabled: boolean, print: (guestId: number, name: string) => Promise<void>) {
  const printed = useRef<number>(undefined);
  useEffect(() => {
    if (!enabled || !result || printed.current === result.serial) return;
    if (result.outcome !== 'checked_in' || result.sessionName || result.replayed || result.offline) return;
    const guest = result.guest;
    if (!guest || guest.id < 0) return;
    printed.current = result.serial;
    void print(guest.id, `${guest.first_name ?? ''} ${guest.last_name ?? ''}`.trim());
  }, [result, enabled, print]);
}
