import { useEffect, useState } from 'react';
import type { z } from 'zod';
import type { Api } from '../api';
import type { Me } from '../../../server/schemas/auth';

/** Who is signed in, as GET /me says: kind, role, group, and whether they manage keys and users. */
export type Caller = z.output<typeof Me>;

/** The server's word on the caller, asked once per sign-in, so the screen hides what the role may not do. */
export function useCaller(api: Api | undefined): Caller | undefined {
  const [caller, setCaller] = useState<Caller>();
  useEffect(() => {
    setCaller(undefined);
    if (!api) return;
    let live = true;
    api.get<Caller>('/me').then(
      (me) => live && setCaller(me),
      // Offline at start: the door works offline, the console waits for the server.
      () => live && setCaller({ kind: 'key', role: 'door', is_admin: false, group_id: null, manages_access: false }),
    );
    return () => {
      live = false;
    };
  }, [api]);
  return caller;
}

/** Sets events up: a manager (user or key) or an administrator. */
export const managesEvents = (caller: Caller) => caller.is_admin || caller.role === 'manager';
