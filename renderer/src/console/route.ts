import { useEffect, useState } from 'react';

/**
 * Where the screen is, kept in the address's hash (`#/console/events/3/guests`), so a reload,
 * the browser's back button and a bookmark all land on the same page. No hash: the door.
 */
export function useHashPath(): string[] {
  const [hash, setHash] = useState(() => window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function navigate(path: string): void {
  window.location.hash = path;
}

export function consoleHref(...parts: (string | number)[]): string {
  return `#/${['console', ...parts].map((p) => encodeURIComponent(String(p))).join('/')}`;
}
