/// <reference types="vite-plugin-pwa/client" />
import { useEffect } from 'react';
import { registerSW } from 'virtual:pwa-register';
import { desktop } from './desktop';
import { keepAppShell } from './keep-app-shell';

/**
 * The offline app shell (DESIGN "Sharing on the LAN"): a service worker keeps the door screen's
 * files, so a reload while the server cannot be reached comes back signed in, on its event, with
 * its copy of the guest list. Browsers allow one only on a secure page they trust: loopback, or
 * the LAN address once the laptop's authority is installed. The desktop app needs none (its
 * server runs in the app itself).
 */
const allowed = typeof navigator !== 'undefined' && 'serviceWorker' in navigator && window.isSecureContext && !desktop;

export function registerAppShell(): void {
  // A certificate the browser does not trust refuses the worker: the page then guards itself,
  // and asks again now and then (the authority may be installed meanwhile).
  if (!allowed) return;
  void keepAppShell(() => new Promise((resolve, reject) => registerSW({ immediate: true, onRegisteredSW: (_url, registration) => resolve(registration), onRegisterError: reject })));
}

/** Whether the page in front of the user was served by the app shell (a reload would be too). */
function keptByAppShell(): boolean {
  return allowed && !!navigator.serviceWorker.controller;
}

/**
 * Where no app shell keeps the page, leaving it while the server cannot be reached, or while
 * scans wait to be handed over, would lose the door: the browser asks first. (Pull-to-refresh
 * is off everywhere: styles.css, overscroll-behavior.)
 */
export function useLeaveGuard(atRisk: boolean): void {
  useEffect(() => {
    if (!atRisk || desktop) return;
    const warn = (e: BeforeUnloadEvent) => {
      if (keptByAppShell()) return;
      e.preventDefault();
      // Older browsers ask only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [atRisk]);
}
