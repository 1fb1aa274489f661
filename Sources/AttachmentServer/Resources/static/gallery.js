// AttachmentStore web UI: a note's gallery as the person's own, exposed as `window.AttachGallery`.
//
// Selection: the Select button (or a Ctrl/⌘-click, a Shift-click for a range, a long press on
// a touch screen) starts it; then a click or tap, Space or Enter toggles a photo. The bar that
// appears deletes the selected photos (to the trash), moves them in their order to the end of
// another note, or downloads their originals as one zip. Escape or Cancel ends it.
//
// Order: dragging a tile with a mouse or pen moves it among the others, and Alt+ArrowLeft /
// Alt+ArrowRight moves the focused one a place; either is saved through the position API
// (PATCH /api/attachments/{id} {"position": N}), so it syncs, and is announced in the status.
'use strict';

(() => {
  const { api, element } = window.Attach;
  const LONG_PRESS_MS = 500;
  const DRAG_PIXELS = 8;

  /**
   * The position on the server of the loaded tile `item`. Tiles uploaded on this page
   * (data-added) stand after the pages not loaded yet (data-unloaded of the gallery).
   */
  function serverIndex(gallery, item) {
    const tiles = [...gallery.querySelectorAll('.tile')];
    const firstAdded = tiles.findIndex((tile) => tile.dataset.added);
    const index = tiles.indexOf(item);
    return index + (firstAdded >= 0 && index >= firstAdded ? Number(gallery.dataset.unloaded || 0) : 0);
  }

  function attach(gallery, noteID) {
    const part = (id) => document.getElementById(id);
    const status = part('save-status');
    const bar = part('selection-bar');
    const count = part('selection-count');
    const target = part('move-target');
    const download = part('selection-download');
    let anchor = null; // the tile a Shift-click's range starts from
    let swallowClick = false; // the click that ends a long press or a drag does nothing more

    const thumbOf = (tile) => tile.querySelector('.thumb');
    const selected = () => [...gallery.querySelectorAll('.tile.selected')];
    const selecting = () => gallery.dataset.selecting === 'true';

    // ---- Selection -----------------------------------------------------------------------
    const refresh = () => {
      const chosen = selected();
      count.textContent = `${chosen.length} selected`;
      for (const button of bar.querySelectorAll('[data-needs-selection]')) button.disabled = chosen.length === 0;
      const ids = chosen.map((tile) => tile.dataset.id);
      if (ids.length > 0) {
        download.href = `/api/notes/${noteID}/originals.zip?ids=${ids.join(',')}`;
        download.removeAttribute('aria-disabled');
      } else {
        download.removeAttribute('href');
        download.setAttribute('aria-disabled', 'true');
      }
    };
    const toggle = (tile, on = !tile.classList.contains('selected')) => {
      tile.classList.toggle('selected', on);
      thumbOf(tile).setAttribute('aria-pressed', String(on));
    };
    const start = async () => {
      if (selecting()) return;
      gallery.dataset.selecting = 'true';
      for (const tile of gallery.querySelectorAll('.tile')) thumbOf(tile).setAttribute('aria-pressed', 'false');
      bar.hidden = false;
      part('select').setAttribute('aria-pressed', 'true');
      refresh();
      // The notes a selection can move to, most recently changed first.
      target.replaceChildren(element('option', { value: '', text: 'Move to…' }));
      try {
        const page = await api('GET', '/api/notes?limit=200');
        for (const note of page.notes) {
          if (note.id !== noteID) target.append(element('option', { value: note.id, text: note.title || 'Untitled' }));
        }
      } catch (error) {
        status.textContent = `Notes not listed: ${error.message}`;
      }
    };
    const stop = () => {
      delete gallery.dataset.selecting;
      for (const tile of gallery.querySelectorAll('.tile')) {
        tile.classList.remove('selected');
        thumbOf(tile).removeAttribute('aria-pressed');
      }
      bar.hidden = true;
      part('select').setAttribute('aria-pressed', 'false');
      anchor = null;
    };
    const choose = (tile, event) => {
      if (event.shiftKey && anchor && anchor.isConnected) {
        const tiles = [...gallery.querySelectorAll('.tile')];
        const [from, to] = [tiles.indexOf(anchor), tiles.indexOf(tile)].sort((a, b) => a - b);
        for (const each of tiles.slice(from, to + 1)) toggle(each, true);
      } else {
        toggle(tile);
        anchor = tile;
      }
      refresh();
    };

    // Clicks are looked at before the viewer's: in a selection, or with a modifier, a click
    // chooses instead of opening.
    gallery.addEventListener('click', (event) => {
      if (swallowClick) {
        swallowClick = false;
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      const thumb = event.target.closest('.thumb');
      if (!thumb) return;
      const modified = event.ctrlKey || event.metaKey || event.shiftKey;
      if (!selecting() && !modified) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      if (!selecting()) start();
      choose(thumb.closest('.tile'), event);
    }, true);
    part('select').addEventListener('click', () => (selecting() ? stop() : start()));
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && selecting() && !document.querySelector('dialog[open]')) stop();
    });
    part('selection-cancel').addEventListener('click', stop);
    // New tiles (a page scrolled in, an upload, a change from elsewhere) join a selection unselected.
    gallery.addEventListener('gallery-tiles', (event) => {
      if (!selecting()) return;
      for (const tile of event.detail) thumbOf(tile)?.setAttribute('aria-pressed', 'false');
    });

    const removeTiles = (done, verb) => {
      for (const tile of done) tile.remove();
      status.textContent = `${verb} ${done.length} ${done.length === 1 ? 'file' : 'files'}`;
      refresh();
    };
    part('selection-delete').addEventListener('click', async () => {
      const done = [];
      try {
        for (const tile of selected()) {
          await api('DELETE', `/api/attachments/${tile.dataset.id}`);
          done.push(tile);
        }
        removeTiles(done, 'Moved to the trash:');
        stop();
      } catch (error) {
        removeTiles(done, 'Moved to the trash:');
        status.textContent += `; the rest not deleted: ${error.message}`;
      }
    });
    part('selection-move').addEventListener('click', async () => {
      const note = target.value;
      if (!note) {
        status.textContent = 'Choose the note to move them to';
        target.focus();
        return;
      }
      const name = target.selectedOptions[0].textContent;
      const done = [];
      try {
        // One after another, in gallery order: each goes last in the other note, so they
        // arrive there in this order.
        for (const tile of selected()) {
          await api('PATCH', `/api/attachments/${tile.dataset.id}`, { noteId: note });
          done.push(tile);
        }
        removeTiles(done, `Moved to ${name}:`);
        stop();
      } catch (error) {
        removeTiles(done, `Moved to ${name}:`);
        status.textContent += `; the rest not moved: ${error.message}`;
      }
    });

    // A long press on a touch screen starts a selection with that photo.
    let press = null;
    gallery.addEventListener('pointerdown', (event) => {
      const thumb = event.target.closest('.thumb');
      if (!thumb || event.pointerType !== 'touch') return;
      const tile = thumb.closest('.tile');
      press = {
        x: event.clientX, y: event.clientY,
        timer: setTimeout(() => {
          press = null;
          swallowClick = true;
          start();
          toggle(tile, true);
          anchor = tile;
          refresh();
        }, LONG_PRESS_MS),
      };
    });
    const cancelPress = (event) => {
      if (!press) return;
      if (event.type === 'pointermove' && Math.hypot(event.clientX - press.x, event.clientY - press.y) < 10) return;
      clearTimeout(press.timer);
      press = null;
    };
    for (const type of ['pointermove', 'pointerup', 'pointercancel']) gallery.addEventListener(type, cancelPress);
    gallery.addEventListener('contextmenu', (event) => { if (event.target.closest('.thumb') && swallowClick) event.preventDefault(); });

    // ---- Order -------------------------------------------------------------------------
    const save = async (tile) => {
      const name = thumbOf(tile).dataset.filename;
      const tiles = [...gallery.querySelectorAll('.tile')];
      try {
        await api('PATCH', `/api/attachments/${tile.dataset.id}`, { position: serverIndex(gallery, tile) });
        status.textContent = `Moved ${name} to place ${tiles.indexOf(tile) + 1} of ${tiles.length}`;
      } catch (error) {
        status.textContent = `Order not saved: ${error.message}`;
      }
    };

    // Dragging with a mouse or a pen: the tile moves among the others as the pointer passes them.
    // (The browser's own drag of a thumbnail image would cancel the pointer: it is turned off.)
    gallery.addEventListener('dragstart', (event) => { if (event.target.closest('.thumb')) event.preventDefault(); });
    let drag = null;
    gallery.addEventListener('pointerdown', (event) => {
      const thumb = event.target.closest('.thumb');
      if (!thumb || event.pointerType === 'touch' || event.button !== 0 || selecting()) return;
      drag = { tile: thumb.closest('.tile'), x: event.clientX, y: event.clientY, moving: false, id: event.pointerId };
    });
    gallery.addEventListener('pointermove', (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      if (!drag.moving) {
        if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < DRAG_PIXELS) return;
        drag.moving = true;
        drag.tile.classList.add('dragging');
        gallery.setPointerCapture(event.pointerId);
      }
      event.preventDefault();
      const over = document.elementFromPoint(event.clientX, event.clientY)?.closest('.tile');
      if (!over || over === drag.tile || over.parentElement !== gallery) return;
      const before = drag.tile.compareDocumentPosition(over) & Node.DOCUMENT_POSITION_PRECEDING;
      over.insertAdjacentElement(before ? 'beforebegin' : 'afterend', drag.tile);
    });
    const endDrag = (event) => {
      if (!drag || event.pointerId !== drag.id) return;
      const { tile, moving } = drag;
      drag = null;
      if (!moving) return;
      tile.classList.remove('dragging');
      swallowClick = true;
      setTimeout(() => { swallowClick = false; }, 0); // no click follows a drag outside the tile
      save(tile);
      thumbOf(tile).focus();
    };
    gallery.addEventListener('pointerup', endDrag);
    gallery.addEventListener('pointercancel', endDrag);

    // The keyboard: Alt+ArrowLeft/Right moves the focused tile a place.
    gallery.addEventListener('keydown', (event) => {
      const thumb = event.target.closest('.thumb');
      if (!thumb || !event.altKey || (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight')) return;
      event.preventDefault();
      const tile = thumb.closest('.tile');
      const neighbour = event.key === 'ArrowLeft' ? tile.previousElementSibling : tile.nextElementSibling;
      if (!neighbour || !neighbour.classList.contains('tile')) return;
      neighbour.insertAdjacentElement(event.key === 'ArrowLeft' ? 'beforebegin' : 'afterend', tile);
      thumb.focus();
      save(tile);
    });

    return { selecting, stop, selected, remove: removeTiles };
  }

  window.AttachGallery = Object.freeze({ attach, serverIndex });
})();
