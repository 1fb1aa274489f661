// AttachmentStore web UI: the photo viewer of a note page, exposed as `window.AttachViewer`.
//
// One click or tap on a tile (or Enter/Space on it) opens the viewer on that photo. It pages
// through the gallery in the gallery's order: the Previous/Next buttons, ArrowLeft/ArrowRight,
// and a horizontal swipe. It streams the image with progress (the display rendition the server
// names, so a HEIC or a huge original still shows) and can be cancelled by closing. Zoom (+/-
// buttons and keys, the wheel, a double-click or double-tap) enlarges up to 8x; a zoomed image
// is panned by dragging, and once zoomed past the display rendition's pixels the original is
// loaded in its place when the browser can draw it. Escape or Done closes and returns focus to
// the tile the viewer was last on; Delete moves the photo shown to the trash and shows the next.
// A video plays in place of the image: the playable copy the server names (data-video), its
// display rendition as the poster, the browser's own controls; it stops when the viewer moves
// on or closes. A tile that is neither has no preview: its original is a download.
'use strict';

(() => {
  const { api, element, errorMessage, megabytes } = window.Attach;

  /** Types every browser we serve draws itself; others are shown through the display rendition. */
  const DRAWABLE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/svg+xml', 'image/bmp']);
  const MAX_SCALE = 8;
  const SWIPE_PIXELS = 50;

  /**
   * Wires the viewer `dialog` to the tiles of `gallery` (`.tile .thumb` buttons carrying
   * data-original, data-display, data-filename, data-image, data-media-type and, for a
   * video, data-video; for a Live Photo, data-motion, its clip's playable copy).
   */
  function attach(gallery, dialog) {
    const part = (id) => document.getElementById(id);
    const image = part('viewer-image');
    const video = part('viewer-video');
    const stage = part('viewer-stage');
    const spinner = part('viewer-spinner');
    const progress = part('viewer-progress');
    const name = part('viewer-name');
    const position = part('viewer-position');
    const download = part('viewer-download');
    const previous = part('viewer-previous');
    const next = part('viewer-next');
    const zoomIn = part('viewer-zoom-in');
    const zoomOut = part('viewer-zoom-out');
    const detailsToggle = part('viewer-details');
    const live = part('viewer-live');
    const factsPanel = part('viewer-facts');
    const factsList = part('viewer-facts-list');
    const altInput = part('viewer-alt');
    const altStatus = part('viewer-alt-status');
    let controller = null;
    let objectURL = null;
    let current = null; // the .thumb button shown
    let view = { scale: 1, x: 0, y: 0 };
    let originalShown = false;
    dialog.dataset.state = 'closed';

    const thumbs = () => [...gallery.querySelectorAll('.tile .thumb')];

    const reset = () => {
      if (controller) controller.abort();
      controller = null;
      image.hidden = true;
      image.removeAttribute('src');
      if (objectURL) URL.revokeObjectURL(objectURL);
      objectURL = null;
      originalShown = false;
      setView({ scale: 1, x: 0, y: 0 });
      // A video stops, and stops downloading.
      if (!video.hidden || video.getAttribute('src')) {
        video.pause();
        video.removeAttribute('src');
        video.removeAttribute('poster');
        video.load();
      }
      video.hidden = true;
      delete dialog.dataset.kind;
    };

    // ---- Zoom and pan ------------------------------------------------------------------
    function setView(next) {
      const scale = Math.min(MAX_SCALE, Math.max(1, next.scale));
      // A zoomed image may be moved until its edge reaches the stage's, no further.
      const limitX = (image.clientWidth * (scale - 1)) / 2;
      const limitY = (image.clientHeight * (scale - 1)) / 2;
      view = {
        scale,
        x: scale === 1 ? 0 : Math.min(limitX, Math.max(-limitX, next.x)),
        y: scale === 1 ? 0 : Math.min(limitY, Math.max(-limitY, next.y)),
      };
      image.style.transform = scale === 1 ? '' : `translate(${view.x}px, ${view.y}px) scale(${scale})`;
      dialog.dataset.zoomed = String(scale > 1);
      dialog.dataset.scale = scale.toFixed(2);
      zoomOut.disabled = scale <= 1;
      zoomIn.disabled = scale >= MAX_SCALE;
      if (scale > 1) showOriginalWhenSharper();
    }
    const zoomBy = (factor) => setView({ scale: view.scale * factor, x: view.x * factor, y: view.y * factor });

    /** Past the display rendition's own pixels, the original (when drawable) shows more. */
    async function showOriginalWhenSharper() {
      const button = current;
      if (originalShown || !button || dialog.dataset.state !== 'loaded') return;
      if (button.dataset.display === button.dataset.original || !DRAWABLE.has(button.dataset.mediaType)) return;
      if (image.naturalWidth >= image.clientWidth * view.scale) return;
      originalShown = true;
      try {
        const blob = await load(button.dataset.original, controller, (text) => { progress.textContent = `Original: ${text}`; });
        if (current !== button) return;
        swapIn(blob);
        await image.decode();
        progress.textContent = '';
        dialog.dataset.original = 'shown';
      } catch (error) {
        if (current === button && !(controller && controller.signal.aborted)) progress.textContent = `Original not loaded: ${error.message}`;
      }
    }

    // ---- Details -----------------------------------------------------------------------
    /** Fills the details panel for `button`'s attachment: its record and its EXIF facts. */
    async function showFacts(button) {
      const id = button.closest('.tile').dataset.id;
      factsList.replaceChildren(element('dt', { text: 'File name' }), element('dd', { text: button.dataset.filename }));
      altInput.value = '';
      altStatus.textContent = '';
      try {
        const [attachment, facts] = await Promise.all([api('GET', `/api/attachments/${id}`), api('GET', `/api/attachments/${id}/facts`)]);
        if (current !== button) return;
        const rows = [
          ['Taken', facts.capturedAt && new Date(facts.capturedAt.slice(0, 19)).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })],
          ['Camera', facts.camera], ['Lens', facts.lens],
          ['Pixels', attachment.image && `${attachment.image.width} × ${attachment.image.height}`],
          ['Size', megabytes(attachment.byteCount)], ['Type', attachment.mediaType], ['File name', attachment.filename],
        ];
        factsList.replaceChildren(...rows.filter(([, value]) => value).flatMap(([term, value]) => [
          element('dt', { text: term }), element('dd', { text: value }),
        ]));
        altInput.value = (attachment.metadata && attachment.metadata.alt) || '';
        dialog.dataset.facts = 'loaded';
      } catch (error) {
        if (current === button) factsList.append(element('dd', { text: `Details not loaded: ${error.message}` }));
      }
    }
    const setDetails = (open) => {
      factsPanel.hidden = !open;
      detailsToggle.setAttribute('aria-expanded', String(open));
      if (open && current) showFacts(current);
    };
    detailsToggle.addEventListener('click', () => setDetails(factsPanel.hidden));
    // The description (alt text) is the picture's, saved with it and synced: the tile and the
    // viewer's image say it to a screen reader from then on.
    part('viewer-alt-form').addEventListener('submit', async (event) => {
      event.preventDefault();
      const button = current;
      if (!button) return;
      const tile = button.closest('.tile');
      const text = altInput.value.trim();
      try {
        await api('PATCH', `/api/attachments/${tile.dataset.id}`, { alt: text });
        const described = text || button.dataset.filename;
        const thumbnail = button.querySelector('img');
        if (thumbnail) thumbnail.alt = described;
        if (current === button) image.alt = described;
        altStatus.textContent = text ? 'Saved' : 'Removed';
      } catch (error) {
        altStatus.textContent = `Not saved: ${error.message}`;
      }
    });

    // ---- Loading ---------------------------------------------------------------------
    /** Streams `url` into a Blob, reporting progress; cancelled through `owner`'s signal. */
    async function load(url, owner, report) {
      const response = await fetch(url, { signal: owner.signal, credentials: 'same-origin' });
      if (!response.ok) throw new Error(await errorMessage(response));
      const total = Number(response.headers.get('Content-Length')) || 0;
      const reader = response.body.getReader();
      const parts = [];
      let received = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received += value.length;
        report(total ? `${megabytes(received)} of ${megabytes(total)}` : megabytes(received));
      }
      return new Blob(parts, { type: response.headers.get('Content-Type') || '' });
    }
    const swapIn = (blob) => {
      if (objectURL) URL.revokeObjectURL(objectURL);
      objectURL = URL.createObjectURL(blob);
      image.src = objectURL;
    };

    /** Shows the tile `button` in the open viewer. */
    async function show(button) {
      reset();
      current = button;
      const all = thumbs();
      const index = all.indexOf(button);
      const label = button.dataset.filename;
      name.textContent = label;
      dialog.setAttribute('aria-label', label);
      position.textContent = all.length > 1 ? `${index + 1} of ${all.length}` : '';
      // A step button disabled under focus (the last photo reached) would drop focus out of
      // the dialog: it moves to the other one, or to Done.
      const focused = document.activeElement;
      previous.disabled = index <= 0;
      next.disabled = index < 0 || index >= all.length - 1;
      if (focused && focused.disabled) {
        const other = focused === next ? previous : next;
        (other.disabled ? part('viewer-done') : other).focus();
      }
      dialog.dataset.index = String(index);
      delete dialog.dataset.original;
      delete dialog.dataset.facts;
      if (!factsPanel.hidden) showFacts(button);
      download.href = button.dataset.original;
      download.setAttribute('download', label);
      live.hidden = !button.dataset.motion;
      if (button.dataset.video) {
        playVideo(button);
        return;
      }
      if (button.dataset.image !== 'true') {
        spinner.hidden = true;
        progress.textContent = `${label} has no preview; Download original saves it.`;
        dialog.dataset.state = 'file';
        return;
      }
      spinner.hidden = false;
      progress.textContent = 'Loading…';
      dialog.dataset.state = 'loading';
      const mine = new AbortController();
      controller = mine;
      try {
        const blob = await load(button.dataset.display || button.dataset.original, mine, (text) => { progress.textContent = text; });
        if (controller !== mine) return;
        image.alt = button.querySelector('img')?.alt || label;
        swapIn(blob);
        await image.decode();
        if (controller !== mine) return;
        spinner.hidden = true;
        progress.textContent = '';
        image.hidden = false;
        dialog.dataset.state = 'loaded';
      } catch (error) {
        if (controller !== mine || mine.signal.aborted) return;
        spinner.hidden = true;
        progress.textContent = `Could not load the image: ${error.message}`;
        dialog.dataset.state = 'failed';
      }
    }

    /**
     * Plays `button`'s video (or `source`, a Live Photo's clip): the server makes its playable
     * copy on the first request (a spinner until the first frame), then the browser streams it
     * with range requests. A Live Photo's clip plays at once, and the still comes back at its end.
     */
    function playVideo(button, source = button.dataset.video) {
      dialog.dataset.kind = 'video';
      spinner.hidden = false;
      progress.textContent = 'Preparing the video…';
      dialog.dataset.state = 'loading';
      const mine = new AbortController();
      controller = mine;
      const ready = () => {
        if (controller !== mine) return;
        spinner.hidden = true;
        progress.textContent = '';
        video.hidden = false;
        dialog.dataset.state = 'loaded';
      };
      const failed = async () => {
        if (controller !== mine || mine.signal.aborted) return;
        // The element says only that it failed: the server's own words come from asking again.
        let reason = 'the video could not be played';
        try {
          const response = await fetch(source, { headers: { Range: 'bytes=0-0' }, signal: mine.signal, credentials: 'same-origin' });
          if (!response.ok) reason = await errorMessage(response);
        } catch (error) { /* keep the general reason */ }
        if (controller !== mine) return;
        spinner.hidden = true;
        progress.textContent = `Could not play the video: ${reason}`;
        dialog.dataset.state = 'failed';
      };
      video.addEventListener('loadeddata', ready, { once: true, signal: mine.signal });
      video.addEventListener('error', failed, { once: true, signal: mine.signal });
      if (button.dataset.image === 'true') video.poster = button.dataset.display;
      video.setAttribute('aria-label', button.dataset.filename);
      if (source !== button.dataset.video) {
        video.addEventListener('loadeddata', () => { if (controller === mine) video.play().catch(() => {}); }, { once: true, signal: mine.signal });
        video.addEventListener('ended', () => { if (controller === mine) show(button); }, { once: true, signal: mine.signal });
      }
      video.src = source;
    }

    // A Live Photo's still moves on demand: its clip plays over it, then the still comes back.
    live.addEventListener('click', () => {
      if (!current || !current.dataset.motion) return;
      reset();
      live.hidden = false;
      playVideo(current, current.dataset.motion);
    });

    const open = (button) => {
      if (!dialog.open) {
        // Not a picture and not browsing: the original is the thing itself, a download.
        if (button.dataset.image !== 'true' && !button.dataset.video) {
          window.location.href = button.dataset.original;
          return;
        }
        dialog.showModal();
        part('viewer-done').focus();
      }
      show(button);
    };
    const step = (offset) => {
      const all = thumbs();
      const target = all[all.indexOf(current) + offset];
      if (target) show(target);
    };

    const close = () => {
      const wasLoading = dialog.dataset.state === 'loading';
      reset();
      dialog.dataset.state = wasLoading ? 'aborted' : 'closed';
      if (dialog.open) dialog.close();
      if (current && current.isConnected) current.focus();
      current = null;
    };

    // ---- Gestures --------------------------------------------------------------------
    gallery.addEventListener('click', (event) => {
      // (A click in a selection, or with a modifier, chooses instead: gallery.js takes it first.)
      const button = event.target.closest('.thumb');
      if (button) open(button);
    });
    part('viewer-done').addEventListener('click', close);
    // Delete moves the photo shown to the trash (restorable on every device) and shows the next
    // one, or the one before; the viewer closes when none is left.
    part('viewer-delete').addEventListener('click', async () => {
      const button = current;
      if (!button) return;
      const tile = button.closest('.tile');
      const all = thumbs();
      const neighbour = all[all.indexOf(button) + 1] || all[all.indexOf(button) - 1];
      const status = document.getElementById('save-status');
      try {
        await api('DELETE', `/api/attachments/${tile.dataset.id}`);
        tile.remove();
        status.textContent = `Moved ${button.dataset.filename} to the trash`;
        if (neighbour) show(neighbour); else { current = null; close(); }
      } catch (error) {
        status.textContent = `Not deleted: ${error.message}`;
      }
    });
    previous.addEventListener('click', () => step(-1));
    next.addEventListener('click', () => step(1));
    zoomIn.addEventListener('click', () => zoomBy(2));
    zoomOut.addEventListener('click', () => zoomBy(0.5));
    dialog.addEventListener('cancel', (event) => { event.preventDefault(); close(); });
    document.addEventListener('keydown', (event) => {
      if (!dialog.open || event.target.closest('input, textarea')) return;
      const actions = {
        ArrowLeft: () => step(-1), ArrowRight: () => step(1),
        '+': () => zoomBy(2), '=': () => zoomBy(2), '-': () => zoomBy(0.5), 0: () => setView({ scale: 1 }),
      };
      const action = actions[event.key];
      if (!action || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      action();
    });
    stage.addEventListener('dblclick', () => {
      if (dialog.dataset.kind !== 'video') setView(view.scale > 1 ? { scale: 1 } : { scale: 2.5, x: 0, y: 0 });
    });
    stage.addEventListener('wheel', (event) => {
      if (dialog.dataset.state !== 'loaded' || dialog.dataset.kind === 'video') return;
      event.preventDefault();
      zoomBy(event.deltaY < 0 ? 1.25 : 0.8);
    }, { passive: false });

    // Dragging pans a zoomed image (mouse or one finger).
    let drag = null;
    stage.addEventListener('pointerdown', (event) => {
      if (view.scale <= 1 || event.button !== 0) return;
      drag = { id: event.pointerId, x: event.clientX - view.x, y: event.clientY - view.y };
      stage.setPointerCapture(event.pointerId);
    });
    stage.addEventListener('pointermove', (event) => {
      if (!drag || drag.id !== event.pointerId) return;
      setView({ scale: view.scale, x: event.clientX - drag.x, y: event.clientY - drag.y });
    });
    const endDrag = () => { drag = null; };
    stage.addEventListener('pointerup', endDrag);
    stage.addEventListener('pointercancel', endDrag);

    // A horizontal swipe pages (when not zoomed: then a finger pans); two quick taps zoom.
    let touch = null;
    let lastTap = 0;
    stage.addEventListener('touchstart', (event) => {
      if (event.touches.length !== 1) { touch = null; return; }
      touch = { x: event.touches[0].clientX, y: event.touches[0].clientY };
    }, { passive: true });
    stage.addEventListener('touchend', (event) => {
      if (!touch || event.changedTouches.length !== 1) return;
      const dx = event.changedTouches[0].clientX - touch.x;
      const dy = event.changedTouches[0].clientY - touch.y;
      touch = null;
      if (view.scale > 1) return;
      if (Math.abs(dx) >= SWIPE_PIXELS && Math.abs(dx) > Math.abs(dy)) {
        step(dx < 0 ? 1 : -1);
      } else if (Math.abs(dx) < 10 && Math.abs(dy) < 10) {
        const now = Date.now();
        if (now - lastTap < 300) setView({ scale: 2.5, x: 0, y: 0 });
        lastTap = now;
      }
    });

    return { open, close };
  }

  window.AttachViewer = Object.freeze({ attach });
})();
