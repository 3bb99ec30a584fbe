/**
 * Waits between tries to install the app shell. A network change while the worker fetches its
 * files (a laptop or phone joining another Wi-Fi, an interface coming up) fails the install, and
 * the browser drops the registration and would not try again before the next page load: a door
 * reloaded offline after that would have nothing to come back from.
 */
export const APP_SHELL_RETRY_MS = [2_000, 5_000, 15_000, 60_000];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Registers the service worker until one is in use: a failed install or an unreachable (or
 * refused) worker script is tried again after each wait of APP_SHELL_RETRY_MS, then every minute.
 */
export async function keepAppShell(register: () => Promise<ServiceWorkerRegistration | undefined>, wait: (ms: number) => Promise<void> = sleep): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const registration = await register();
      if (registration && (await takesOver(registration))) return;
    } catch {
      // The worker script did not arrive or was refused (a certificate the browser does not trust): later.
    }
    await wait(APP_SHELL_RETRY_MS[Math.min(attempt, APP_SHELL_RETRY_MS.length - 1)]);
  }
}

/** Whether the registration ends with a worker in use (true), or its install failed (false). */
function takesOver(registration: ServiceWorkerRegistration): Promise<boolean> {
  if (registration.active) return Promise.resolve(true);
  const worker = registration.installing ?? registration.waiting;
  if (!worker) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = () => {
      if (worker.state === 'activated') resolve(true);
      else if (worker.state === 'redundant') resolve(registration.active !== null);
      else return;
      worker.removeEventListener('statechange', settle);
    };
    worker.addEventListener('statechange', settle);
    settle();
  });
}
