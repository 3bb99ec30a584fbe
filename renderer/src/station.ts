import { desktop } from './desktop';

const KEY = 'doorlist.station';

/** The name every scan carries: set by staff, else the desktop's hostname, else a short random one. */
export async function initialStation(): Promise<string> {
  const saved = localStorage.getItem(KEY);
  if (saved) return saved;
  let name = '';
  try {
    name = desktop ? await desktop.hostname() : '';
  } catch {
    name = '';
  }
  if (!name) name = `Door ${Math.random().toString(36).slice(2, 6).toUpperCase()}`;
  localStorage.setItem(KEY, name);
  return name;
}

export function saveStation(name: string): void {
  localStorage.setItem(KEY, name);
}
