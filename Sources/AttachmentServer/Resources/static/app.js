// AttachmentStore web UI. Plain JavaScript, no build step, nothing from another host.
// Pages are rendered on the server; this file adds autosave, search, uploads, the viewer and the
// progress of photos whose bytes are still coming from a peer.
'use strict';

(() => {
  const { goToLogin, errorMessage, api, fragment, element, megabytes } = window.Attach;

  /** Uploads one file with XMLHttpRequest (fetch has no upload progress). */
  function upload(method, url, file, onProgress) {
    return new Promise((resolve, reject) => {
      const attempt = () => {
        const xhr = new XMLHttpRequest();
        xhr.open(method, `${url}?filename=${encodeURIComponent(file.name)}`);
        xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
        xhr.upload.addEventListener('progress', (event) => {
          if (event.lengthComputable) onProgress(event.loaded, event.total);
        });
        xhr.addEventListener('load', () => {
          let body = null;
          try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON */ }
          if (xhr.status === 401) goToLogin();
          if (xhr.status >= 200 && xhr.status < 300) return resolve(body);
          reject(new Error(body && body.error ? body.error.message : `HTTP ${xhr.status}`));
        });
        xhr.addEventListener('error', () => reject(new Error('the connection failed')));
        xhr.addEventListener('abort', () => reject(new Error('cancelled')));
        xhr.send(file);
      };
      attempt();
    });
  }

  const localTimes = () => {
    for (const time of document.querySelectorAll('time[datetime]')) {
      const date = new Date(time.getAttribute('datetime'));
      if (!Number.isNaN(date.getTime())) time.textContent = date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
    }
  };

  // ---- Notes list -------------------------------------------------------------------------
  // ---- Live changes -------------------------------------------------------------------------
  // The page holds one request to the server's change feed (`GET /sync/changes?wait=25`), which
  // the server answers as soon as anything changes (here, or arriving from a peer); `onChanges`
  // gets each batch's changes. It starts from the position the page was rendered at
  // (`data-feed`), so nothing made between the render and the first request is missed. A failed
  // request is tried again after a pause that doubles up to a minute; leaving the page ends it.
  // `data-feed-seen` on the body says how far the page has read (the browser test waits on it).
  function liveChanges(onChanges) {
    let since = Number(document.body.dataset.feed);
    if (!Number.isSafeInteger(since)) return;
    const controller = new AbortController();
    window.addEventListener('pagehide', () => controller.abort());
    let pause = 1000;
    const next = async () => {
      try {
        const response = await fetch(`/sync/changes?since=${since}&wait=25`, { credentials: 'same-origin', signal: controller.signal });
        if (response.status === 401) { goToLogin(); return; }
        if (!response.ok) throw new Error(await errorMessage(response));
        const batch = await response.json();
        pause = 1000;
        if (batch.changes.length > 0) {
          try { await onChanges(batch.changes); } catch (_) { /* the next change tries again */ }
        }
        since = batch.nextSequence;
        document.body.dataset.feedSeen = String(since);
        setTimeout(next, 0);
      } catch (_) {
        if (controller.signal.aborted) return;
        setTimeout(next, pause);
        pause = Math.min(pause * 2, 60000);
      }
    };
    next();
  }

  function notesPage() {
    const list = document.getElementById('notes');
    const empty = document.getElementById('empty');
    const search = document.getElementById('search');
    const sort = document.getElementById('sort');
    const status = document.getElementById('status');
    document.getElementById('new-note').addEventListener('click', async () => {
      try {
        const note = await api('POST', '/api/notes', { title: '', body: '' });
        window.location.href = `/notes/${note.id}`;
      } catch (error) {
        status.textContent = `Could not create a note: ${error.message}`;
      }
    });
    let timer = null;
    let generation = 0;
    const pager = document.querySelector('.pager');
    /** The items of `/notes-page` (the server renders them, the one place their markup is made). */
    const notesFragment = async (query, after) => {
      const params = new URLSearchParams();
      if (query) params.set('q', query);
      if (sort.value !== 'updated') params.set('sort', sort.value);
      if (after) params.set('after', after);
      const page = await fragment(`/notes-page?${params}`);
      if (!page) throw new Error('the notes list is not there');
      return page.querySelector('ul');
    };
    /** "More notes" appends the next page in place; without this script it is a plain link. */
    const showMore = (next) => {
      pager.replaceChildren();
      if (next) {
        const more = element('button', { type: 'button', id: 'notes-more', text: 'More notes' });
        more.addEventListener('click', async () => {
          more.disabled = true;
          try {
            const page = await notesFragment(search.value.trim(), next);
            list.append(...[...page.children].map((item) => document.importNode(item, true)));
            localTimes();
            showMore(page.dataset.next);
          } catch (error) {
            more.disabled = false;
            status.textContent = `More notes could not be loaded: ${error.message}`;
          }
        });
        pager.append(more);
      }
    };
    if (list.dataset.next && !new URLSearchParams(window.location.search).get('after')) showMore(list.dataset.next);
    // The first page as the server has it now for the search box's text and the chosen order.
    const refresh = async () => {
      const query = search.value.trim();
      const mine = ++generation;
      try {
        const page = await notesFragment(query, null);
        if (mine !== generation) return;
        list.replaceChildren(...[...page.children].map((item) => document.importNode(item, true)));
        showMore(page.dataset.next);
        empty.hidden = list.children.length > 0;
        empty.textContent = query ? `No note matches “${query}”.` : 'No notes yet. Make one with “New note”.';
        const address = new URLSearchParams();
        if (query) address.set('q', query);
        if (sort.value !== 'updated') address.set('sort', sort.value);
        history.replaceState(null, '', address.size ? `/?${address}` : '/');
        localTimes();
      } catch (error) {
        status.textContent = `Search failed: ${error.message}`;
      }
    };
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = setTimeout(refresh, 200);
    });
    sort.addEventListener('change', () => {
      clearTimeout(timer);
      refresh();
    });
    // A note made, changed or deleted anywhere shows here without a reload.
    liveChanges(async (changes) => {
      if (changes.some((change) => change.kind === 'note' || (change.kind === 'tombstone' && change.tombstone.entity === 'note'))) {
        await refresh();
      }
    });
  }

  // ---- Note page: autosave ----------------------------------------------------------------
  function autosave(noteURL) {
    const title = document.getElementById('title');
    const body = document.getElementById('body');
    const status = document.getElementById('save-status');
    let dirty = false;
    let saving = null;
    let timer = null;
    const save = async () => {
      clearTimeout(timer);
      if (saving) return saving.then(() => (dirty ? save() : undefined));
      if (!dirty) return undefined;
      dirty = false;
      status.textContent = 'Saving…';
      saving = api('PATCH', noteURL, { title: title.value, body: body.value })
        .then(() => { if (!dirty) status.textContent = 'Saved'; })
        .catch((error) => { dirty = true; status.textContent = `Not saved: ${error.message}`; })
        .finally(() => { saving = null; });
      return saving;
    };
    const changed = () => {
      dirty = true;
      status.textContent = 'Editing…';
      clearTimeout(timer);
      timer = setTimeout(save, 400);
    };
    title.addEventListener('input', changed);
    body.addEventListener('input', changed);
    title.addEventListener('blur', save);
    body.addEventListener('blur', save);
    window.addEventListener('beforeunload', () => {
      if (!dirty) return;
      fetch(noteURL, {
        method: 'PATCH', keepalive: true,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: title.value, body: body.value }),
      });
    });
    // A version of the note saved elsewhere (another tab, device or peer) replaces what the page
    // shows, unless the user has typed something not yet saved here: that stays, and is saved.
    const show = (field, value) => {
      if (field.value === value) return;
      const focused = document.activeElement === field;
      const [start, end] = [field.selectionStart, field.selectionEnd];
      field.value = value;
      if (focused) field.setSelectionRange(Math.min(start, value.length), Math.min(end, value.length));
    };
    const showNote = (note) => {
      show(title, note.title);
      show(body, note.body);
      document.title = note.title || 'Untitled';
    };
    return {
      received(note) {
        if (dirty || saving) return;
        showNote(note);
      },
      /** A version the user chose to restore replaces the page's text, unsaved typing included. */
      restored(note) {
        clearTimeout(timer);
        dirty = false;
        showNote(note);
        status.textContent = 'Saved';
      },
    };
  }

  // ---- Note page: earlier versions ----------------------------------------------------------
  // "Earlier versions" lists what each edit replaced (the server keeps a note's last 20, a
  // peer's winning edit included), loaded whenever it is opened; "Restore" makes one the note's
  // text again, as a new edit that syncs, and the text it replaces joins the list.
  function noteHistory(noteID, text) {
    const details = document.getElementById('history');
    const list = document.getElementById('versions');
    const status = document.getElementById('history-status');
    const load = async () => {
      try {
        const { versions } = await api('GET', `/api/notes/${noteID}/versions`);
        list.replaceChildren(...versions.map((version) => element('li', { class: 'version' }, [
          element('time', { datetime: version.updatedAt, text: version.updatedAt }),
          element('span', { class: 'version-title', text: version.title || 'Untitled' }),
          element('span', { class: 'version-body', text: version.body.split('\n')[0].slice(0, 120) || '(no text)' }),
          element('button', { type: 'button', class: 'restore', dataset: { version: version.version }, text: 'Restore' }),
        ])));
        status.textContent = versions.length === 0 ? 'No earlier versions yet: each edit keeps the text it replaces.' : '';
        localTimes();
      } catch (error) {
        status.textContent = `Could not load the versions: ${error.message}`;
      }
    };
    details.addEventListener('toggle', () => { if (details.open) load(); });
    list.addEventListener('click', async (event) => {
      const button = event.target.closest('button.restore');
      if (!button) return;
      button.disabled = true;
      try {
        const version = encodeURIComponent(button.dataset.version);
        text.restored(await api('POST', `/api/notes/${noteID}/versions/${version}/restore`));
        await load();
      } catch (error) {
        status.textContent = `Not restored: ${error.message}`;
        button.disabled = false;
      }
    });
  }

  // ---- Note page: gallery, uploads, viewer -------------------------------------------------
  /**
   * The gallery tile of attachment `id` of note `noteID`, from the server's own gallery
   * fragment (`/notes/{id}/gallery?attachment=`), the one place a tile's markup is made; `null`
   * when the attachment is not (or no longer) in the note's gallery.
   */
  async function serverTile(noteID, id) {
    const page = await fragment(`/notes/${noteID}/gallery?attachment=${encodeURIComponent(id)}`);
    const item = page && page.querySelector(`.tile[data-id="${CSS.escape(id)}"]`);
    return item ? document.importNode(item, true) : null;
  }

  /** `file`, renamed when the clipboard gave it only a generic name ("image.png"). */
  function pastedName(file, index) {
    if (file.name && !/^image\.\w+$/i.test(file.name)) return file;
    const stamp = new Date().toISOString().slice(0, 19).replace('T', ' ').replaceAll(':', '.');
    const extension = (file.type.split('/')[1] || 'bin').replace('jpeg', 'jpg').replace(/\+.*/, '');
    return new File([file], `Pasted ${stamp}${index > 0 ? ` (${index + 1})` : ''}.${extension}`, { type: file.type });
  }

  function uploads(noteID) {
    const gallery = document.getElementById('gallery');
    const list = document.getElementById('uploads');
    const queue = [];
    let running = 0;
    const MAX_PARALLEL = 3;

    // Finished rows fold away together once nothing is uploading, so the gallery below moves
    // once, not under the pointer at every file.
    let folding = null;
    const foldWhenIdle = () => {
      clearTimeout(folding);
      folding = setTimeout(() => {
        if (running > 0 || queue.length > 0) return;
        for (const row of list.querySelectorAll('.upload.done:not(.folded)')) row.classList.add('folded');
      }, 1500);
    };

    const pump = () => {
      while (running < MAX_PARALLEL && queue.length > 0) {
        const job = queue.shift();
        running += 1;
        job().finally(() => { running -= 1; pump(); foldWhenIdle(); });
      }
    };

    /**
     * Adds a progress row and queues `run(progress, waiting)`, whose result goes to `done`.
     * A finished row folds away (see `foldWhenIdle`); a failed one stays, with its reason and a
     * Retry button.
     */
    const enqueue = (file, label, run, done) => {
      const progress = element('progress', { max: '100', value: '0', 'aria-label': `${label} ${file.name}` });
      const state = element('span', { class: 'upload-state', text: 'waiting' });
      const row = element('li', { class: 'upload', dataset: { filename: file.name, state: 'waiting' } }, [
        element('span', { class: 'upload-name', text: `${label} ${file.name} (${megabytes(file.size)})` }), state, progress,
      ]);
      for (const paused of list.querySelectorAll('.upload[data-state=paused]')) {
        if (paused.dataset.filename === file.name) paused.remove();
      }
      list.append(row);
      // Once the bytes are stored, a retry only repeats what comes after (showing the tile).
      let stored = null;
      const job = async () => {
        state.textContent = '0%';
        row.dataset.state = 'uploading';
        row.classList.remove('failed');
        try {
          const result = stored ? stored.result : await run((sent, total, resumedFrom = 0) => {
            const percent = Math.floor((sent / total) * 100);
            progress.value = Math.min(percent, 99);
            row.dataset.state = 'uploading';
            if (resumedFrom > 0) {
              row.dataset.resumedFrom = String(resumedFrom);
              state.textContent = `${percent}% (resumed at ${Math.floor((resumedFrom / total) * 100)}%)`;
            } else {
              state.textContent = `${percent}%`;
            }
          }, (reason, seconds) => {
            row.dataset.state = 'retrying';
            state.textContent = `${reason}; retrying in ${seconds} s`;
          });
          stored = { result };
          progress.value = 100;
          await done(result);
          state.textContent = 'done';
          row.classList.add('done');
          row.dataset.state = 'done';
        } catch (error) {
          state.textContent = `failed: ${error.message}`;
          row.classList.add('failed');
          row.dataset.state = 'failed';
          const retry = element('button', { type: 'button', class: 'retry', text: 'Retry' });
          retry.addEventListener('click', () => {
            retry.remove();
            queue.push(job);
            pump();
          });
          state.after(retry);
        }
      };
      queue.push(job);
      pump();
    };

    // The gallery keeps the order the files were chosen in, whatever order they finish in: each
    // file has a place held for it at once, and when it is stored it is moved on the server to
    // that place among the stored ones. The moves run one after another, so each sees the last.
    // A 404 means the upload is no attachment of its own any more (the clip of a Live Photo the
    // still has just taken in, or one moved to the trash meanwhile): nothing to place, nothing
    // to say; the live feed brings the gallery up to date.
    let ordering = Promise.resolve();
    const placeOnServer = (item) => {
      ordering = ordering.then(async () => {
        await api('PATCH', `/api/attachments/${item.dataset.id}`, { position: window.AttachGallery.serverIndex(gallery, item) });
      }).catch((error) => {
        if (error.status === 404) return;
        document.getElementById('save-status').textContent = `Order not saved: ${error.message}`;
      });
      return ordering;
    };

    const importFiles = (files) => {
      for (const file of files) {
        // data-added: made on this page, so later gallery pages go before it (galleryPages).
        const placeholder = element('li', { class: 'tile-pending', dataset: { filename: file.name, added: '1' } }, [
          element('span', { class: 'tile-name', text: file.name }),
        ]);
        gallery.append(placeholder);
        enqueue(file, 'Importing', (progress, waiting) => window.AttachResumableUpload.upload(noteID, file, {
          progress, waiting, unauthorized: goToLogin,
        }), async (attachmentID) => {
          const item = await serverTile(noteID, attachmentID);
          if (!item) { placeholder.remove(); return; }  // moved to the trash meanwhile
          item.dataset.added = '1';
          // The live feed may have shown the new attachment already (followNote): one tile.
          gallery.querySelector(`.tile[data-id="${CSS.escape(attachmentID)}"]`)?.remove();
          placeholder.replaceWith(item);
          await placeOnServer(item);
        });
      }
    };

    // Uploads an earlier page left unfinished: choosing the same file again continues it.
    window.AttachResumableUpload.unfinished(noteID).then((unfinished) => {
      for (const upload of unfinished) {
        const percent = Math.floor((upload.offset / upload.size) * 100);
        list.append(element('li', { class: 'upload paused', dataset: { filename: upload.name, state: 'paused' } }, [
          element('span', { class: 'upload-name', text: `${upload.name} (${megabytes(upload.size)})` }),
          element('span', { class: 'upload-state', text: `${percent}% sent; choose the file again to continue` }),
        ]));
      }
    });

    const importInput = document.getElementById('import');
    importInput.addEventListener('change', () => {
      importFiles([...importInput.files]);
      importInput.value = '';
    });

    const changeInput = document.getElementById('change');
    let changing = null;
    changeInput.addEventListener('change', () => {
      const file = changeInput.files[0];
      const target = changing;
      changeInput.value = '';
      if (!file || !target) return;
      enqueue(file, 'Replacing with', (progress) => upload('PUT', `/api/attachments/${target.dataset.id}/data`, file, progress),
        async (attachment) => {
          const item = await serverTile(noteID, attachment.id);
          if (item) target.replaceWith(item);
        });
    });

    // Paste anywhere on the note: files and images on the clipboard are imported (a screenshot
    // arrives as a nameless "image.png", so it is named after the moment it was pasted). Text
    // pastes into the title or body as usual.
    document.addEventListener('paste', (event) => {
      const files = [...(event.clipboardData ? event.clipboardData.files : [])];
      if (files.length === 0) return;
      event.preventDefault();
      importFiles(files.map((file, index) => pastedName(file, index)));
    });

    const drop = document.getElementById('drop');
    const main = document.getElementById('note');
    main.addEventListener('dragover', (event) => {
      if (![...event.dataTransfer.types].includes('Files')) return;
      event.preventDefault();
      drop.classList.add('over');
    });
    main.addEventListener('dragleave', (event) => {
      if (!main.contains(event.relatedTarget)) drop.classList.remove('over');
    });
    main.addEventListener('drop', (event) => {
      if (!event.dataTransfer.files.length) return;
      event.preventDefault();
      drop.classList.remove('over');
      importFiles([...event.dataTransfer.files]);
    });

    gallery.addEventListener('click', async (event) => {
      const button = event.target.closest('button');
      if (!button) return;
      const item = button.closest('.tile');
      if (button.classList.contains('change')) {
        changing = item;
        changeInput.click();
      } else if (button.classList.contains('delete')) {
        // To the trash, from which it can be restored on any device: no confirmation needed.
        const name = item.querySelector('.thumb').dataset.filename;
        try {
          await api('DELETE', `/api/attachments/${item.dataset.id}`);
          const next = item.nextElementSibling || item.previousElementSibling;
          item.remove();
          if (next) next.querySelector('.thumb').focus();
          document.getElementById('save-status').textContent = `Moved ${name} to the trash`;
        } catch (error) {
          document.getElementById('save-status').textContent = `Not deleted: ${error.message}`;
        }
      }
    });
    // A broken thumbnail (a damaged image) shows the file name instead. Photos still coming
    // from a peer are left to remoteTiles.
    gallery.addEventListener('error', (event) => {
      if (event.target.tagName !== 'IMG' || event.target.closest('.tile[data-availability=remote]')) return;
      event.target.replaceWith(element('span', { class: 'file-icon', text: 'no preview' }));
    }, true);
  }

  // ---- Note page: photos whose bytes are on a peer -----------------------------------------
  // Their tiles (data-availability="remote") keep the thumbnail address in data-src. Requesting
  // the thumbnail makes the server fetch the bytes from a peer first, which can take seconds,
  // so those requests are paced: at most MAX_LOADING at a time, for tiles near the viewport,
  // leaving the browser's few connections per host to autosave and the polls. While a request
  // is in flight the attachment is polled for the transfer's progress, which moves the ring;
  // once the thumbnail has loaded the placeholder goes and the tile is a normal one.
  function remoteTiles() {
    const gallery = document.getElementById('gallery');
    const MAX_LOADING = 2;
    const POLL_MS = 500;
    const near = new Set(); // remote tiles near the viewport, waiting for their turn
    const loading = new Set(); // remote tiles whose thumbnail request is in flight
    let timer = null;
    let polling = false;

    const show = (item, received, total) => {
      const ring = item.querySelector('.fetch .ring');
      if (!ring) return;
      const percent = total > 0 ? Math.min(100, Math.floor((received / total) * 100)) : 0;
      ring.setAttribute('aria-valuenow', String(percent));
      if (total > 0) ring.setAttribute('aria-valuetext', `${percent}%: ${megabytes(received)} of ${megabytes(total)}`);
      else ring.removeAttribute('aria-valuetext');
      ring.querySelector('.ring-value').setAttribute('stroke-dasharray', `${percent} 100`);
      ring.querySelector('.ring-label').textContent = `${percent}%`;
    };

    const poll = async () => {
      timer = null;
      polling = true;
      await Promise.all([...loading].map(async (item) => {
        if (!item.isConnected) { loading.delete(item); return; } // deleted or replaced meanwhile
        try {
          const attachment = await api('GET', `/api/attachments/${item.dataset.id}`);
          if (!loading.has(item)) return;
          if (attachment.fetch) show(item, attachment.fetch.received, attachment.fetch.total);
          else if (attachment.available) show(item, attachment.byteCount, attachment.byteCount);
        } catch (_) { /* the next poll asks again */ }
      }));
      polling = false;
      pump();
    };
    const schedule = () => {
      if (timer === null && !polling && loading.size > 0) timer = setTimeout(poll, POLL_MS);
    };

    const start = (item) => {
      near.delete(item);
      loading.add(item);
      const image = item.querySelector('.thumb img');
      image.setAttribute('srcset', image.dataset.srcset);
      image.setAttribute('src', image.dataset.src);
    };
    const pump = () => {
      for (const item of gallery.querySelectorAll('.tile[data-availability=remote]')) {
        if (loading.size >= MAX_LOADING) break;
        if (near.has(item)) start(item);
      }
      schedule();
    };

    const done = (item) => {
      loading.delete(item);
      near.delete(item);
      observer.unobserve(item);
    };
    const reveal = (item) => {
      done(item);
      item.querySelector('.fetch').remove();
      delete item.dataset.availability;
      pump();
    };
    const fail = async (item, image) => {
      done(item);
      pump();
      let available = false;
      try { available = (await api('GET', `/api/attachments/${item.dataset.id}`)).available; } catch (_) { /* not here */ }
      if (available) { // the bytes came, but they are not a picture the server can read
        image.replaceWith(element('span', { class: 'file-icon', text: 'no preview' }));
        reveal(item);
        return;
      }
      item.dataset.fetch = 'failed';
      const overlay = item.querySelector('.fetch');
      overlay.querySelector('.ring').hidden = true;
      overlay.append(element('span', { class: 'fetch-failed', text: 'Could not fetch' }),
        element('button', { type: 'button', class: 'retry', text: 'Retry', 'aria-label': `Retry fetching ${image.alt}` }));
    };
    const retry = (item) => {
      delete item.dataset.fetch;
      const overlay = item.querySelector('.fetch');
      for (const node of overlay.querySelectorAll('.fetch-failed, .retry')) node.remove();
      overlay.querySelector('.ring').hidden = false;
      show(item, 0, 0);
      const image = item.querySelector('.thumb img');
      const fresh = image.cloneNode(false); // a new element, so the browser asks again
      fresh.removeAttribute('src');
      fresh.removeAttribute('srcset');
      image.replaceWith(fresh);
      item.querySelector('.thumb').focus();
      observer.observe(item);
    };

    const observer = new IntersectionObserver((entries) => {
      for (const { target, isIntersecting } of entries) {
        if (loading.has(target) || target.dataset.fetch === 'failed') continue;
        if (isIntersecting) near.add(target); else near.delete(target);
      }
      pump();
    }, { rootMargin: '200px' });
    for (const item of gallery.querySelectorAll('.tile[data-availability=remote]')) observer.observe(item);
    gallery.addEventListener('gallery-tiles', (event) => {
      for (const item of event.detail) if (item.dataset.availability === 'remote') observer.observe(item);
    });

    const remoteTile = (image) => {
      const item = image.tagName === 'IMG' ? image.closest('.tile') : null;
      return item && loading.has(item) ? item : null;
    };
    gallery.addEventListener('load', (event) => {
      const item = remoteTile(event.target);
      if (item) reveal(item);
    }, true);
    gallery.addEventListener('error', (event) => {
      const item = remoteTile(event.target);
      if (item) fail(item, event.target);
    }, true);
    gallery.addEventListener('click', (event) => {
      const button = event.target.closest('button.retry');
      if (button) retry(button.closest('.tile'));
    });
  }

  // A note's gallery arrives a page at a time: the page holds the first tiles and, while there
  // are more, the next page's address in the gallery's data-next. When the "More photos" line
  // under the gallery comes near the viewport, the next page's tiles (an HTML fragment the
  // server renders, the same markup as the page's) are appended, and a 'gallery-tiles' event
  // tells the remote-tile pacing about them. Tiles uploaded meanwhile stay last, where the
  // server put them, and a tile already shown is not added twice.
  function galleryPages() {
    const gallery = document.getElementById('gallery');
    const more = document.getElementById('gallery-more');
    if (!more) return;
    let loading = false;
    const nearViewport = () => more.isConnected && more.getBoundingClientRect().top < window.innerHeight + 600;
    const load = async () => {
      const next = gallery.dataset.next;
      if (loading || !next) return;
      loading = true;
      more.textContent = 'Loading more photos…';
      try {
        const fetched = await fragment(next);
        if (!fetched) throw new Error('the note is gone');
        const page = fetched.querySelector('ul');
        const firstAdded = gallery.querySelector('[data-added]');
        const added = [];
        for (const item of [...page.children]) {
          if (gallery.querySelector(`.tile[data-id="${CSS.escape(item.dataset.id || '')}"]`)) continue;
          const adopted = document.importNode(item, true);
          gallery.insertBefore(adopted, firstAdded);
          added.push(adopted);
        }
        gallery.dataset.unloaded = String(Math.max(0, Number(gallery.dataset.unloaded || 0) - added.length));
        if (page.dataset.next) {
          gallery.dataset.next = page.dataset.next;
          more.textContent = 'More photos below';
        } else {
          delete gallery.dataset.next;
          more.remove();
        }
        gallery.dispatchEvent(new CustomEvent('gallery-tiles', { detail: added }));
      } catch (error) {
        more.textContent = `More photos could not be loaded (${error.message}); scroll again to retry.`;
        return;
      } finally {
        loading = false;
      }
      if (nearViewport()) load(); // a short page: the line is still in sight
    };
    new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) load();
    }, { rootMargin: '600px' }).observe(more);
  }

  // A note page follows the changes to its note: its text (see `autosave`), its deletion, and
  // its gallery, whose tiles are added, replaced or removed in place. A tile comes from the
  // server's own gallery fragment (`/notes/{id}/gallery`), the one place its markup is made.
  function followNote(noteID, text) {
    const gallery = document.getElementById('gallery');
    const status = document.getElementById('save-status');
    const tileOf = (id) => gallery.querySelector(`.tile[data-id="${CSS.escape(id)}"]`);
    liveChanges(async (changes) => {
      const added = [];
      for (const change of changes) {
        if (change.kind === 'note' && change.note.id === noteID && change.note.trashedAt) {
          status.textContent = 'This note was moved to the trash elsewhere';
          document.body.dataset.deleted = 'true';
        } else if (change.kind === 'note' && change.note.id === noteID) {
          delete document.body.dataset.deleted;  // restored from the trash, or simply edited
          text.received(change.note);
        } else if (change.kind === 'tombstone' && change.tombstone.entity === 'note' && change.tombstone.id === noteID) {
          status.textContent = 'This note was deleted elsewhere';
          document.body.dataset.deleted = 'true';
        } else if (change.kind === 'tombstone' && change.tombstone.entity === 'attachment') {
          const item = tileOf(change.tombstone.id);
          if (item) item.remove();
        } else if (change.kind === 'attachment' && change.attachment.trashedAt) {
          const item = tileOf(change.attachment.id);
          if (item) item.remove();
        } else if (change.kind === 'attachment' && change.attachment.noteID === noteID) {
          const item = await serverTile(noteID, change.attachment.id);
          if (!item) continue;
          const shown = tileOf(change.attachment.id);
          if (shown && shown.dataset.added) continue;  // uploaded from this page, shown already
          if (shown) {
            // The same bytes under the same name: nothing to redraw (a remote photo arriving is
            // remoteTiles' to show). The original's address names its content (`?v=<hash>`).
            const same = (tileItem) => {
              const thumb = tileItem.querySelector('.thumb');
              return thumb ? `${thumb.dataset.original} ${thumb.dataset.filename}` : '';
            };
            if (same(shown) === same(item)) continue;
            shown.replaceWith(item);
          } else {
            gallery.insertBefore(item, gallery.querySelector('[data-added]'));
          }
          added.push(item);
        }
      }
      if (added.length > 0) gallery.dispatchEvent(new CustomEvent('gallery-tiles', { detail: added }));
    });
  }

  function notePage() {
    const main = document.getElementById('note');
    const noteID = main.dataset.noteId;
    const text = autosave(`/api/notes/${noteID}`);
    uploads(noteID);
    remoteTiles();
    galleryPages();
    window.AttachGallery.attach(document.getElementById('gallery'), noteID);
    window.AttachViewer.attach(document.getElementById('gallery'), document.getElementById('viewer'));
    followNote(noteID, text);
    noteHistory(noteID, text);
    document.getElementById('delete-note').addEventListener('click', async () => {
      // To the trash, from which it can be restored on any device: no confirmation needed.
      try {
        await api('DELETE', `/api/notes/${noteID}`);
        window.location.href = '/';
      } catch (error) {
        document.getElementById('save-status').textContent = `Not deleted: ${error.message}`;
      }
    });
  }

  // ---- Trash page ------------------------------------------------------------------------
  function trashPage() {
    const list = document.getElementById('trash');
    const status = document.getElementById('status');
    const emptyButton = document.getElementById('empty-trash');
    const showEmpty = () => {
      const empty = list.children.length === 0;
      document.getElementById('empty').hidden = !empty;
      emptyButton.hidden = empty;
    };
    list.addEventListener('click', async (event) => {
      const button = event.target.closest('button');
      if (!button) return;
      const item = button.closest('.trash-item');
      const title = item.querySelector('.note-title').textContent;
      try {
        if (button.classList.contains('restore')) {
          await api('POST', `/api/trash/${item.dataset.id}/restore`);
          status.textContent = `Restored ${title}`;
        } else if (button.classList.contains('purge')) {
          if (!window.confirm(`Delete ${title} forever, on every device? This cannot be undone.`)) return;
          await api('DELETE', `/api/trash/${item.dataset.id}`);
          status.textContent = `Deleted ${title} forever`;
        } else {
          return;
        }
        const next = item.nextElementSibling || item.previousElementSibling;
        item.remove();
        if (next) next.querySelector('button').focus();
        showEmpty();
      } catch (error) {
        status.textContent = `Not done: ${error.message}`;
      }
    });
    emptyButton.addEventListener('click', async () => {
      if (!window.confirm('Delete everything in the trash forever, on every device? This cannot be undone.')) return;
      try {
        await api('DELETE', '/api/trash');
        list.replaceChildren();
        status.textContent = 'The trash is empty';
        showEmpty();
      } catch (error) {
        status.textContent = `Not emptied: ${error.message}`;
      }
    });
  }

  document.addEventListener('DOMContentLoaded', () => {
    localTimes();
    window.Attach.themeToggle();
    if (document.body.classList.contains('trash-page')) trashPage();
    if (document.body.classList.contains('notes-page')) notesPage();
    if (document.body.classList.contains('note-page')) notePage();
  });
})();
