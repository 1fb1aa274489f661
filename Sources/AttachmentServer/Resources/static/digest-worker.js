// The upload page's hashing, off the main thread: the SHA-256 of a file, as base64, so that the
// page can ask the server whether it already holds those bytes before sending them.
'use strict';

self.addEventListener('message', async (event) => {
  const { id, file } = event.data;
  try {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
    let binary = '';
    for (const byte of digest) binary += String.fromCharCode(byte);
    self.postMessage({ id, digest: btoa(binary) });
  } catch (error) {
    self.postMessage({ id, error: String(error) });
  }
});
