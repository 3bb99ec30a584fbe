import { useCallback, useEffect, useState } from 'react';
import { listAll, OfflineError, type Api } from '../api';

/** A short list (groups, events, sessions...) read whole, and read again after a change. */
export function useList<T>(api: Api, path: string | undefined) {
  const [items, setItems] = useState<T[]>();
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  useEffect(() => {
    if (!path) return;
    let live = true;
    listAll<T>(api, path, 100)
      .then((results) => {
        if (!live) return;
        setItems(results);
        setError(undefined);
      })
      .catch((err) => live && setError(err instanceof OfflineError ? err.message : (err as Error).message));
    return () => {
      live = false;
    };
  }, [api, path, version]);
  return { items, error, reload };
}

/** An API Datetime as a form field wants it: `YYYY-MM-DDThh:mm`. */
export function toFormDatetime(value: unknown): string {
  return typeof value === 'string' ? value.slice(0, 16) : '';
}
