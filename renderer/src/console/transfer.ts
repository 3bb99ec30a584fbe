import { API_BASE, detailOf, OfflineError, type Api } from '../api';

/** A file the API writes (CSV, event file), saved through the browser's download. */
export async function downloadFrom(api: Api, path: string, fallbackName: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(API_BASE + path, { headers: { authorization: `Token ${api.token}` } });
  } catch {
    throw new OfflineError();
  }
  if (!res.ok) throw new Error(detailOf(await res.json().catch(() => undefined)) ?? `The server answered ${res.status}.`);
  const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '');
  const name = match ? decodeURIComponent(match[1]) : fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

/**
 * A raw body upload that reports how much has been sent (fetch cannot), for event files of
 * many megabytes. Answers like apiRequest: status and parsed body.
 */
export function uploadWithProgress(api: Api, path: string, body: Blob | string, contentType: string, onProgress: (fraction: number) => void): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', API_BASE + path);
    xhr.setRequestHeader('authorization', `Token ${api.token}`);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new OfflineError());
    xhr.onload = () => {
      if (xhr.status >= 500) return reject(new OfflineError(`The server answered ${xhr.status}.`));
      let parsed: unknown = xhr.responseText;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {
        // Not JSON: shown as it is.
      }
      resolve({ status: xhr.status, body: parsed });
    };
    xhr.send(body);
  });
}
