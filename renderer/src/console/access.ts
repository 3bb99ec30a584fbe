import { useEffect, useState } from 'react';
import type { Api } from '../api';

/** What the signed-in caller may do: `manager` sets events up, `door` only scans (DESIGN "Roles"). */
export type Role = 'manager' | 'door';

/**
 * The server is the judge of a role: a door role is refused the group list (403), which every
 * manager and administrator may read. Asking once tells the screen what to hide.
 */
export function useRole(api: Api | undefined): Role | undefined {
  const [role, setRole] = useState<Role>();
  useEffect(() => {
    setRole(undefined);
    if (!api) return;
    let live = true;
    api
      .request('GET', '/groups?page_size=1')
      .then((answer) => live && setRole(answer.status === 403 ? 'door' : 'manager'))
      // Offline at start: the door works offline, the console waits for the server.
      .catch(() => live && setRole('door'));
    return () => {
      live = false;
    };
  }, [api]);
  return role;
}
