import { useEffect, useState } from 'react';
import type { Api } from '../api';

/** What the signed-in caller may do: `manager` sets events up, `door` only scans (DESIGN "Roles"). */
export type Role = 'manager' | 'door';

/**
 * The server is the judge of a role. The role is checked before the body is read, so an empty
 * group create answers a door 403 and a manager 400 (the missing name): nothing is written,
 * and the screen learns what to hide without an endpoint of its own.
 */
export function useRole(api: Api | undefined): Role | undefined {
  const [role, setRole] = useState<Role>();
  useEffect(() => {
    setRole(undefined);
    if (!api) return;
    let live = true;
    api
      .request('POST', '/groups', {})
      .then((answer) => live && setRole(answer.status === 403 ? 'door' : 'manager'))
      // Offline at start: the door works offline, the console waits for the server.
      .catch(() => live && setRole('door'));
    return () => {
      live = false;
    };
  }, [api]);
  return role;
}
