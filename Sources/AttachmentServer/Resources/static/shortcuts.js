// AttachmentStore web UI: keyboard shortcuts on every page, and the help dialog that lists them
// (press ?). A shortcut is a single key without Ctrl, Alt or ⌘, and never while typing in a
// field, so it cannot take a letter from a note.
'use strict';

(() => {
  const { api, element } = window.Attach;

  /** Key, what it does: the help dialog's rows, in this order. */
  const SHORTCUTS = [
    ['/', 'Search the notes'],
    ['n', 'New note'],
    ['j', 'Next note, or next photo on a note'],
    ['k', 'Previous note, or previous photo'],
    ['Enter', 'Open the note or photo'],
    ['Delete', 'Move the selected photos, or the focused one, to the trash'],
    ['← →', 'Previous and next photo in the viewer'],
    ['Alt + ← →', 'Move the focused photo one place'],
    ['+ − 0', 'Zoom in, out and back in the viewer'],
    ['Esc', 'Close the viewer or this help; end a selection'],
    ['?', 'This list'],
  ];

  const typing = (target) => target.closest && target.closest('input, textarea, select, [contenteditable="true"]');

  function helpDialog() {
    const rows = SHORTCUTS.map(([key, meaning]) => element('tr', {}, [
      element('th', { scope: 'row' }, [element('kbd', { text: key })]), element('td', { text: meaning }),
    ]));
    const done = element('button', { type: 'button', class: 'primary', text: 'Done' });
    const dialog = element('dialog', { id: 'shortcuts', class: 'shortcuts', 'aria-labelledby': 'shortcuts-title' }, [
      element('h2', { id: 'shortcuts-title', text: 'Keyboard shortcuts' }),
      element('table', {}, [element('tbody', {}, rows)]),
      done,
    ]);
    done.addEventListener('click', () => dialog.close());
    document.body.append(dialog);
    return dialog;
  }

  /** Moves the focus `step` places among `items` (from the focused one, else from the start). */
  const moveFocus = (items, step) => {
    if (items.length === 0) return;
    const at = items.indexOf(document.activeElement);
    const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + step));
    items[next].focus();
    items[next].scrollIntoView({ block: 'nearest' });
  };

  document.addEventListener('DOMContentLoaded', () => {
    let help = null;
    const status = document.getElementById('save-status') || document.getElementById('status');
    document.addEventListener('keydown', async (event) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      if (document.querySelector('dialog[open]:not(#shortcuts)')) return; // the viewer has its own keys
      const items = [...document.querySelectorAll('#notes .note-link, #gallery .thumb')];
      switch (event.key) {
        case '?':
          help = help || helpDialog();
          if (help.open) help.close(); else help.showModal();
          break;
        case '/': {
          const search = document.getElementById('search');
          if (search) search.focus(); else window.location.href = '/';
          break;
        }
        case 'n':
          try {
            const note = await api('POST', '/api/notes', { title: '', body: '' });
            window.location.href = `/notes/${note.id}`;
          } catch (error) {
            if (status) status.textContent = `Could not create a note: ${error.message}`;
          }
          break;
        case 'j': moveFocus(items, 1); break;
        case 'k': moveFocus(items, -1); break;
        case 'Delete': {
          const selectionDelete = document.getElementById('selection-delete');
          if (selectionDelete && !document.getElementById('selection-bar').hidden && !selectionDelete.disabled) {
            selectionDelete.click();
          } else {
            const tile = event.target.closest && event.target.closest('#gallery .tile');
            if (!tile) return;
            tile.querySelector('button.delete').click();
          }
          break;
        }
        default:
          return;
      }
      event.preventDefault();
    });
  });
})();
