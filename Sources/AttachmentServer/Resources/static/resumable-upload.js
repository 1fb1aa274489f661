// Resumable uploads for the web UI: a small tus 1.0 client for the server's /api/uploads.
// A file's upload address is kept in localStorage under the file's fingerprint (note, name,
// size, modification time), so a dropped connection, a closed tab or a reloaded page continues
// from the server's offset instead of from zero once the same file is chosen again. Before a new
// upload the file is hashed in a worker (digest-worker.js) and the digest sent with its creation:
// bytes the server already holds are not sent again.
'use strict';

window.AttachResumableUpload = (() => {
  const VERSION = { 'Tus-Resumable': '1.0.0' };
  const PREFIX = 'attach-upload:';
  const MAX_DELAY = 8000;
  // Larger files are sent without asking first: hashing reads the whole file into the worker.
  const MAX_HASHED = 256 * 1024 * 1024;
  const WORKER_URL = document.currentScript ? document.currentScript.dataset.digestWorker : null;
  let worker = null;
  let nextDigest = 0;
  const pendingDigests = new Map();

  /** The file's SHA-256 in base64, computed in the worker; null when it cannot be (no worker,
   * no SubtleCrypto outside a secure context, a file too large): the upload then just sends it. */
  function digestOf(file) {
    if (!WORKER_URL || !window.Worker || file.size > MAX_HASHED) return Promise.resolve(null);
    if (worker === null) {
      try {
        worker = new Worker(WORKER_URL);
      } catch (_) {
        return Promise.resolve(null);
      }
      worker.addEventListener('message', (event) => {
        const done = pendingDigests.get(event.data.id);
        pendingDigests.delete(event.data.id);
        if (done) done(event.data.digest || null);
      });
    }
    const id = nextDigest++;
    return new Promise((resolve) => {
      pendingDigests.set(id, resolve);
      worker.postMessage({ id, file });
    });
  }
  // A connection that moves no byte for this long is taken as gone (a tunnel can hold a request
  // open for minutes without failing it).
  const STALL = 8000;

  const base64 = (text) => {
    let binary = '';
    for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
    return btoa(binary);
  };
  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
  const keyOf = (noteID, file) => `${PREFIX}${noteID}:${file.name}:${file.size}:${file.lastModified}`;

  /** An error the upload can get past by asking where to continue and trying again. */
  class Interrupted extends Error {}

  /** What the server holds of the upload at `url`: `{offset, attachment}`, or null when it has
   * none (unknown or expired). Throws Interrupted when the server cannot be reached. */
  async function status(url) {
    let response;
    try {
      response = await fetch(url, { method: 'HEAD', headers: VERSION, credentials: 'same-origin', cache: 'no-store' });
    } catch (_) {
      throw new Interrupted('the connection is gone');
    }
    if (response.status === 404 || response.status === 410) return null;
    if (!response.ok) throw new Interrupted(`HTTP ${response.status}`);
    return {
      offset: Number(response.headers.get('Upload-Offset')),
      length: Number(response.headers.get('Upload-Length')),
      attachment: response.headers.get('Attachment-Id'),
    };
  }

  /** Creates the upload, naming the file's digest: `{url, attachment}`, the attachment set when
   * the server already held the bytes and finished the upload at once. */
  async function create(noteID, file, onUnauthorized) {
    const headers = { ...VERSION, 'Upload-Length': String(file.size), 'Upload-Metadata': `noteId ${base64(noteID)},filename ${base64(file.name)}` };
    const digest = await digestOf(file);
    if (digest) headers['Repr-Digest'] = `sha-256=:${digest}:`;
    const response = await fetch('/api/uploads', { method: 'POST', credentials: 'same-origin', headers })
      .catch(() => { throw new Interrupted('the connection is gone'); });
    if (response.status === 401) onUnauthorized();
    if (response.status >= 500) throw new Interrupted(`HTTP ${response.status}`);
    if (!response.ok) {
      let message = `HTTP ${response.status}`;
      try { message = (await response.json()).error.message; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    return { url: response.headers.get('Location'), attachment: response.headers.get('Attachment-Id') };
  }

  /** Sends the file from `offset` on in one PATCH; resolves with `{offset, attachment}`. */
  function send(url, file, offset, onProgress, onUnauthorized) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      let moved = Date.now();
      let stalled = false;
      const watch = setInterval(() => {
        if (Date.now() - moved < STALL) return;
        stalled = true;
        xhr.abort();
      }, 1000);
      const settle = (outcome, value) => { clearInterval(watch); outcome(value); };
      resolve = settle.bind(null, resolve);
      reject = settle.bind(null, reject);
      xhr.open('PATCH', url);
      xhr.setRequestHeader('Tus-Resumable', '1.0.0');
      xhr.setRequestHeader('Upload-Offset', String(offset));
      xhr.setRequestHeader('Content-Type', 'application/offset+octet-stream');
      xhr.upload.addEventListener('progress', (event) => {
        moved = Date.now();
        onProgress(offset + event.loaded);
      });
      // Every byte is sent: the answer may take a while (the server stores the file), which is no stall.
      xhr.upload.addEventListener('load', () => clearInterval(watch));
      xhr.addEventListener('load', () => {
        if (xhr.status === 401) onUnauthorized();
        if (xhr.status === 204) {
          return resolve({ offset: Number(xhr.getResponseHeader('Upload-Offset')), attachment: xhr.getResponseHeader('Attachment-Id') });
        }
        // Another offset than ours, a writer still finishing, the server restarting: ask again.
        if (xhr.status === 409 || xhr.status === 423 || xhr.status === 460 || xhr.status >= 500) {
          return reject(new Interrupted(`HTTP ${xhr.status}`));
        }
        let message = `HTTP ${xhr.status}`;
        try { message = JSON.parse(xhr.responseText).error.message; } catch (_) { /* not JSON */ }
        reject(new Error(message));
      });
      xhr.addEventListener('error', () => reject(new Interrupted('the connection is gone')));
      xhr.addEventListener('timeout', () => reject(new Interrupted('the connection timed out')));
      xhr.addEventListener('abort', () => reject(stalled ? new Interrupted('the connection stalled') : new Error('cancelled')));
      xhr.send(file.slice(offset));
    });
  }

  /**
   * Uploads `file` into note `noteID` and resolves with the new attachment's id.
   * `events.progress(sent, total, resumedFrom)`; `events.waiting(message, seconds)` while the
   * connection is gone; `events.unauthorized()` on a 401. Rejects only on an error that trying
   * again cannot fix (a refused file, an expired upload).
   */
  async function upload(noteID, file, events) {
    const key = keyOf(noteID, file);
    let url = null;
    let offset = 0;
    let resumedFrom = 0;
    let delay = 1000;
    for (;;) {
      try {
        if (url === null) {
          const saved = JSON.parse(localStorage.getItem(key) || 'null');
          const known = saved ? await status(saved.url) : null;
          if (known && known.attachment) {
            localStorage.removeItem(key);
            return known.attachment;
          }
          if (known) {
            url = saved.url;
            offset = known.offset;
          } else {
            const created = await create(noteID, file, events.unauthorized);
            if (created.attachment) {
              events.progress(file.size, file.size, file.size);
              return created.attachment;
            }
            url = created.url;
            offset = 0;
            localStorage.setItem(key, JSON.stringify({ url, name: file.name, size: file.size }));
          }
          resumedFrom = offset;
          events.progress(offset, file.size, resumedFrom);
        }
        const result = await send(url, file, offset, (sent) => events.progress(sent, file.size, resumedFrom), events.unauthorized);
        if (result.attachment) {
          localStorage.removeItem(key);
          return result.attachment;
        }
        offset = result.offset;
        delay = 1000;
      } catch (error) {
        if (!(error instanceof Interrupted)) throw error;
        events.waiting(error.message, delay / 1000);
        await sleep(delay);
        delay = Math.min(delay * 2, MAX_DELAY);
        if (url !== null) {
          const known = await status(url).catch(() => undefined);
          if (known === undefined) continue;
          if (known === null) {
            localStorage.removeItem(key);
            throw new Error('the upload expired on the server; choose the file again');
          }
          if (known.attachment) {
            localStorage.removeItem(key);
            return known.attachment;
          }
          offset = known.offset;
          resumedFrom = offset;
          events.progress(offset, file.size, resumedFrom);
        }
      }
    }
  }

  /** Uploads of `noteID` left unfinished by an earlier page: `[{name, size, offset}]`; finished
   * and expired ones are forgotten on the way. */
  async function unfinished(noteID) {
    const found = [];
    for (const key of Object.keys(localStorage)) {
      if (!key.startsWith(`${PREFIX}${noteID}:`)) continue;
      const saved = JSON.parse(localStorage.getItem(key) || 'null');
      const known = saved ? await status(saved.url).catch(() => undefined) : null;
      if (known === undefined) continue;
      if (!known || known.attachment) {
        localStorage.removeItem(key);
        continue;
      }
      found.push({ name: saved.name, size: saved.size, offset: known.offset });
    }
    return found;
  }

  return { upload, unfinished };
})();
