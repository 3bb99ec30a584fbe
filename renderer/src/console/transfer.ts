import { API_BASE, OfflineError, type Api } from '../api';

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
