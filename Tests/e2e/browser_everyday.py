"""The everyday gestures of the web UI, in the real browser: steps of browser_test.py.

- The viewer shows a photo's facts (taken when, camera, pixels, size, type) and pages through the gallery in its order: ArrowRight/ArrowLeft, the Next/Previous
  buttons and a swipe (synthesised touch events); + zooms; Escape returns focus to the tile.
- A PNG pasted from the clipboard (a synthesised paste event) is added with a progress row.
- Order and selection: a tile dragged to the front stays there (reload, API); Alt+ArrowRight
  moves one; three selected and deleted go to the trash; the rest downloads as one zip; two
  moved to another note arrive in order.
- The picker takes any file: a text file becomes a typed tile whose original is a download.
- With prefers-color-scheme: dark emulated the page is dark, and the toggle switches it.
- axe-core (a test fixture from PyPI's axe-playwright-python wheel, unpacked into .cache/axe by
  scripts/install-browser-deps.sh, never served) finds no serious or critical violation on the
  notes list, a note, the viewer and the trash, in the light and the dark theme.
"""
import base64
import io
import os
import zipfile

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

AXE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".cache", "axe", "axe.min.js")


def viewer_state(test):
    return test.js("const v = document.getElementById('viewer');"
                   "return {open: v.open, state: v.dataset.state, index: Number(v.dataset.index),"
                   " name: document.getElementById('viewer-name').textContent, zoomed: v.dataset.zoomed}")


def wait_shown(test, index, how):
    names = test.js("return [...document.querySelectorAll('#gallery .thumb')].map(t => t.dataset.filename)")
    test.wait(lambda d: (lambda s: s["index"] == index and s["state"] == "loaded" and s["name"] == names[index])(viewer_state(test)),
              f"{how} to show photo {index + 1} ({names[index]})")


def swipe(test, dx):
    """A one-finger horizontal swipe of dx pixels across the viewer's stage, as touch events."""
    test.js("""
        const stage = document.getElementById('viewer-stage');
        const box = stage.getBoundingClientRect();
        const y = box.top + box.height / 2, x0 = box.left + box.width / 2, x1 = x0 + arguments[0];
        const touch = (x) => new Touch({identifier: 1, target: stage, clientX: x, clientY: y});
        const fire = (type, x, touches) => stage.dispatchEvent(new TouchEvent(type, {
            bubbles: true, cancelable: true, touches, targetTouches: touches, changedTouches: [touch(x)]}));
        fire('touchstart', x0, [touch(x0)]);
        fire('touchmove', (x0 + x1) / 2, [touch((x0 + x1) / 2)]);
        fire('touchend', x1, []);
    """, dx)


def viewer_pages_with_keys_buttons_and_swipe(test):
    """One click opens the viewer; ArrowRight, Next and a left swipe go forward in gallery order,
    ArrowLeft and a right swipe back; + zooms; Escape closes and focuses the last photo's tile."""
    thumbs = test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")
    assert len(thumbs) >= 3, f"{len(thumbs)} tiles"
    thumbs[0].click()
    wait_shown(test, 0, "one click")
    assert test.driver.find_element(By.ID, "viewer-previous").get_attribute("disabled") is not None, "Previous on the first photo"
    # The photo's facts: when and with what it was taken, from its EXIF, then its size and type.
    test.driver.find_element(By.ID, "viewer-details").click()
    test.wait(lambda d: d.find_element(By.ID, "viewer").get_attribute("data-facts") == "loaded", "the photo's details")
    facts = test.driver.find_element(By.ID, "viewer-facts").text
    assert "KONICA MINOLTA DiMAGE Z5" in facts and "Taken" in facts and "image/jpeg" in facts, facts
    audit(test, "the viewer's details")
    # A description (alt text) saved here is the picture's: in the API, on the tile, after a reload.
    field = test.driver.find_element(By.ID, "viewer-alt")
    field.send_keys("A wooden deck in the sun")
    test.driver.find_element(By.CSS_SELECTOR, "#viewer-alt-form button").click()
    test.wait(lambda d: d.find_element(By.ID, "viewer-alt-status").text == "Saved", "the description to be saved")
    first_id = test.tiles()[0].get_attribute("data-id")
    _, attachment = test.server.get_json(f"/api/attachments/{first_id}")
    assert attachment["metadata"].get("alt") == "A wooden deck in the sun", attachment["metadata"]
    assert test.tiles()[0].find_element(By.TAG_NAME, "img").get_attribute("alt") == "A wooden deck in the sun"
    test.driver.find_element(By.ID, "viewer-details").click()
    ActionChains(test.driver).send_keys(Keys.ARROW_RIGHT).perform()
    wait_shown(test, 1, "ArrowRight")
    ActionChains(test.driver).send_keys(Keys.ARROW_LEFT).perform()
    wait_shown(test, 0, "ArrowLeft")
    test.driver.find_element(By.ID, "viewer-next").click()
    wait_shown(test, 1, "the Next button")
    swipe(test, -200)
    wait_shown(test, 2, "a swipe to the left")
    swipe(test, 200)
    wait_shown(test, 1, "a swipe to the right")
    position = test.driver.find_element(By.ID, "viewer-position").text
    assert position == f"2 of {len(thumbs)}", position
    ActionChains(test.driver).send_keys("+").perform()
    test.wait(lambda d: viewer_state(test)["zoomed"] == "true", "+ to zoom in")
    swipe(test, -200)  # a zoomed photo pans under a finger; it does not page
    assert viewer_state(test)["index"] == 1, "a swipe on a zoomed photo paged"
    ActionChains(test.driver).send_keys("0").perform()
    test.wait(lambda d: viewer_state(test)["zoomed"] == "false", "0 to zoom back out")
    test.shot("09a-viewer-paged")
    ActionChains(test.driver).send_keys(Keys.ESCAPE).perform()
    test.wait(lambda d: not viewer_state(test)["open"], "Escape to close the viewer")
    assert test.js("return document.activeElement === arguments[0]", thumbs[1]), "focus did not return to the photo shown last"


def paste_adds_a_photo(test, png_path):
    """A PNG on the clipboard, pasted anywhere on the note (a synthesised paste event carrying a
    real file), is uploaded with a progress row and becomes the gallery's last tile."""
    with open(png_path, "rb") as f:
        data = base64.b64encode(f.read()).decode()
    before = len(test.tiles())
    test.js("""
        const bytes = Uint8Array.from(atob(arguments[0]), (c) => c.charCodeAt(0));
        const transfer = new DataTransfer();
        transfer.items.add(new File([bytes], 'image.png', {type: 'image/png'}));
        document.body.dispatchEvent(new ClipboardEvent('paste', {clipboardData: transfer, bubbles: true, cancelable: true}));
    """, data)
    row = "#uploads .upload[data-filename^='Pasted ']"
    test.wait(lambda d: d.find_elements(By.CSS_SELECTOR, row), "a progress row for the pasted image")
    test.wait(lambda d: d.find_elements(By.CSS_SELECTOR, row + "[data-state=done]"), "the pasted image to upload")
    test.folded()
    test.wait(lambda d: len(test.tiles()) == before + 1, "the pasted image's tile")
    _, listing = test.server.get_json(f"/api/notes/{test.note_id}/attachments")
    last = listing["attachments"][-1]
    assert last["mediaType"] == "image/png" and last["filename"].startswith("Pasted "), last
    assert test.tiles()[-1].get_attribute("data-id") == last["id"], "the pasted tile is not last"


def viewer_deletes_and_shows_the_next(test, note):
    """Delete in the viewer moves the photo shown to the trash and shows the next one."""
    test.driver.get(f"{test.server.url}/notes/{note}")
    test.wait(lambda d: test.loaded_thumbnails() == len(test.tiles()) > 1, "the note's thumbnails")
    ids = [tile.get_attribute("data-id") for tile in test.tiles()]
    test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")[0].click()
    wait_shown(test, 0, "one click")
    test.driver.find_element(By.ID, "viewer-delete").click()
    test.wait(lambda d: gallery_ids(test) == ids[1:], "the deleted photo to leave the gallery")
    wait_shown(test, 0, "the next photo after a delete")
    assert api_ids(test, note) == ids[1:]
    ActionChains(test.driver).send_keys(Keys.ESCAPE).perform()
    test.wait(lambda d: not viewer_state(test)["open"], "the viewer to close")


def any_file_attaches(test):
    """The picker takes any file: a text file becomes a tile naming its type, whose original is
    a download (the viewer has nothing to draw)."""
    assert test.driver.find_element(By.ID, "import").get_attribute("accept") in (None, ""), "the picker filters types"
    status, note = test.server.send_json("POST", "/api/notes", {"title": "Receipts"})
    assert status == 201, status
    path = os.path.join(test.scratch, "receipt.txt")
    with open(path, "w") as f:
        f.write("one coffee, 3.20\n")
    test.driver.get(f"{test.server.url}/notes/{note['id']}")
    test.driver.find_element(By.ID, "import").send_keys(path)
    test.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "#gallery .tile .file-icon"), "a typed tile for the text file")
    thumb = test.driver.find_element(By.CSS_SELECTOR, "#gallery .tile .thumb")
    assert thumb.get_attribute("data-image") == "false" and thumb.get_attribute("data-media-type").startswith("text/plain"), \
        thumb.get_attribute("data-media-type")
    assert "/original" in thumb.get_attribute("data-original")
    test.shot("09b-any-file")
    test.server.send("DELETE", f"/api/notes/{note['id']}", None)
    test.driver.get(f"{test.server.url}/notes/{test.note_id}")
    test.wait(lambda d: test.tiles(), "the note page again")


def background_luminance(test):
    rgb = test.js("const c = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number); return c.slice(0, 3)")
    return (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255


def emulate_color_scheme(test, scheme):
    test.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


def dark_mode_follows_the_system(test):
    """prefers-color-scheme: dark makes the page dark; the toggle switches to light and is
    remembered across a reload; the audit in the dark theme finds no contrast failure."""
    emulate_color_scheme(test, "dark")
    test.driver.refresh()
    test.wait(lambda d: d.find_elements(By.ID, "theme-toggle"), "the theme toggle")
    assert background_luminance(test) < 0.2, f"the dark theme's background has luminance {background_luminance(test):.2f}"
    audit(test, "a note, dark")
    test.shot("09c-dark")
    test.driver.find_element(By.ID, "theme-toggle").click()
    test.wait(lambda d: background_luminance(test) > 0.8, "the toggle to switch to the light theme")
    test.driver.refresh()
    test.wait(lambda d: d.find_elements(By.ID, "theme-toggle"), "the page again")
    assert background_luminance(test) > 0.8, "the light theme was not remembered"
    test.js("localStorage.removeItem('attach-theme')")
    emulate_color_scheme(test, "light")
    test.driver.refresh()
    test.wait(lambda d: d.find_elements(By.ID, "theme-toggle"), "the page in the light theme")


def audit(test, where):
    """Runs axe-core in the page (WCAG 2 A and AA rules) and fails on any serious or critical
    violation, naming each with the elements it found."""
    with open(AXE) as f:
        source = f.read()
    test.js(source)
    result = test.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})
          .then((r) => done({passes: r.passes.length, violations: r.violations.map((v) => ({id: v.id, impact: v.impact,
              help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' '))}))}))
          .catch((e) => done({passes: 0, violations: [{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]}));
    """)
    assert result["passes"] > 10, f"axe checked almost nothing on {where}: {result}"
    bad = [v for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"axe on {where}: " + "; ".join(f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in bad)


def accessibility_audit(test):
    """axe-core on the notes list, a note, the open viewer and the trash."""
    test.driver.get(test.server.url + "/")
    test.wait(lambda d: d.find_elements(By.ID, "new-note"), "the notes list")
    audit(test, "the notes list")
    test.driver.get(f"{test.server.url}/notes/{test.note_id}")
    test.wait(lambda d: test.loaded_thumbnails() >= 2, "the note's thumbnails")
    audit(test, "a note")
    test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")[0].click()
    test.wait(lambda d: viewer_state(test)["state"] == "loaded", "the viewer")
    audit(test, "the viewer")
    ActionChains(test.driver).send_keys(Keys.ESCAPE).perform()
    test.wait(lambda d: not viewer_state(test)["open"], "the viewer to close")
    test.driver.get(test.server.url + "/trash")
    test.wait(lambda d: d.find_elements(By.ID, "trash"), "the trash")
    audit(test, "the trash")
    test.driver.get(f"{test.server.url}/notes/{test.note_id}")
    test.wait(lambda d: test.loaded_thumbnails() >= 2, "the note again")


def gallery_ids(test):
    return test.js("return [...document.querySelectorAll('#gallery .tile')].map(t => t.dataset.id)")


def api_ids(test, note):
    _, listing = test.server.get_json(f"/api/notes/{note}/attachments")
    return [attachment["id"] for attachment in listing["attachments"]]


SELECTION_PHOTOS = ["special/baseline.jpg", "special/progressive.jpg", "special/orientation-6.jpg",
                    "special/photo.webp", "special/photo.avif", "special/photo.heic"]


def reorder_select_delete_move_and_download(test):
    """In a note of six photos: a tile dragged to the front stays there after a reload and in the
    API; Alt+ArrowRight moves the focused one a place; a long press selects one; three selected and deleted leave the
    gallery for the trash; the rest downloads as one zip; two selected (the first with a
    Ctrl-click) move to another note, in their order."""
    _, note = test.server.send_json("POST", "/api/notes", {"title": "Selection"})
    _, album = test.server.send_json("POST", "/api/notes", {"title": "Album"})
    ids = [test.server.upload(note["id"], test.photo(path)) for path in SELECTION_PHOTOS]
    test.driver.get(f"{test.server.url}/notes/{note['id']}")
    test.wait(lambda d: test.loaded_thumbnails() == len(ids), "six thumbnails")

    # Drag the fourth to the front.
    thumbs = test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")
    ActionChains(test.driver).click_and_hold(thumbs[3]).move_by_offset(-12, 0).move_to_element_with_offset(thumbs[0], -20, 0) \
        .pause(0.2).release().perform()
    expected = [ids[3], ids[0], ids[1], ids[2], ids[4], ids[5]]
    test.wait(lambda d: gallery_ids(test) == expected, "the dragged tile at the front")
    test.wait(lambda d: api_ids(test, note["id"]) == expected, "the new order saved")
    assert not viewer_state(test)["open"], "a drag opened the viewer"
    test.driver.refresh()
    test.wait(lambda d: gallery_ids(test) == expected, "the order after a reload")

    # Alt+ArrowRight moves the focused tile one place later.
    first = test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")[0]
    test.js("arguments[0].focus()", first)
    ActionChains(test.driver).key_down(Keys.ALT).send_keys(Keys.ARROW_RIGHT).key_up(Keys.ALT).perform()
    expected = [ids[0], ids[3], ids[1], ids[2], ids[4], ids[5]]
    test.wait(lambda d: api_ids(test, note["id"]) == expected, "Alt+ArrowRight saved")
    assert gallery_ids(test) == expected, gallery_ids(test)
    assert test.js("return document.activeElement === arguments[0]", first), "focus left the moved tile"

    # A long press (a touch pointer held 0.8 s) starts a selection with that photo; Cancel ends it.
    finger = ActionBuilder(test.driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
    finger.pointer_action.move_to(test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")[4]).pointer_down().pause(0.8).pointer_up()
    finger.perform()
    test.wait(lambda d: d.find_element(By.ID, "selection-count").text == "1 selected", "a long press to select the photo")
    assert test.tiles()[4].get_attribute("class") == "tile selected", test.tiles()[4].get_attribute("class")
    assert not viewer_state(test)["open"], "a long press opened the viewer"
    test.driver.find_element(By.ID, "selection-cancel").click()
    test.wait(lambda d: not d.find_element(By.ID, "selection-bar").is_displayed(), "Cancel to end the selection")

    # Select three and delete them: to the trash.
    test.driver.find_element(By.ID, "select").click()
    test.wait(lambda d: d.find_element(By.ID, "selection-bar").is_displayed(), "the selection bar")
    thumbs = test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")
    for index in (1, 2, 5):
        thumbs[index].click()
    assert test.driver.find_element(By.ID, "selection-count").text == "3 selected"
    assert not viewer_state(test)["open"], "a click in a selection opened the viewer"
    test.shot("16-selected")
    test.driver.find_element(By.ID, "selection-delete").click()
    deleted = [expected[1], expected[2], expected[5]]
    remaining = [expected[0], expected[3], expected[4]]
    test.wait(lambda d: gallery_ids(test) == remaining, "the deleted photos to leave the gallery")
    assert api_ids(test, note["id"]) == remaining
    _, trash = test.server.get_json("/api/trash")
    in_trash = {item["id"] for item in trash["items"] if item["kind"] == "attachment"}
    assert set(deleted) <= in_trash, f"not in the trash: {set(deleted) - in_trash}"

    # The rest as one zip: every original, in the gallery's order.
    test.driver.find_element(By.ID, "select").click()
    for thumb in test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb"):
        thumb.click()
    href = test.driver.find_element(By.ID, "selection-download").get_attribute("href")
    archive = base64.b64decode(test.driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(arguments[0], {credentials: 'same-origin'}).then((r) => r.arrayBuffer())
          .then((b) => { let s = ''; for (const x of new Uint8Array(b)) s += String.fromCharCode(x); done(btoa(s)); });
    """, href))
    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        assert zipped.testzip() is None
        names = zipped.namelist()
    shown = [os.path.basename(SELECTION_PHOTOS[ids.index(i)]) for i in remaining]
    assert names == shown, f"the zip holds {names}, the gallery shows {shown}"
    test.driver.find_element(By.ID, "selection-cancel").click()
    test.wait(lambda d: not d.find_element(By.ID, "selection-bar").is_displayed(), "Cancel to end the selection")

    # Two moved to another note, the first chosen with a Ctrl-click: they arrive in order.
    thumbs = test.driver.find_elements(By.CSS_SELECTOR, "#gallery .thumb")
    ActionChains(test.driver).key_down(Keys.CONTROL).click(thumbs[0]).key_up(Keys.CONTROL).perform()
    test.wait(lambda d: d.find_element(By.ID, "selection-bar").is_displayed(), "a Ctrl-click to start a selection")
    thumbs[2].click()
    test.wait(lambda d: d.find_elements(By.CSS_SELECTOR, f"#move-target option[value='{album['id']}']"), "the notes to move to")
    Select(test.driver.find_element(By.ID, "move-target")).select_by_value(album["id"])
    test.driver.find_element(By.ID, "selection-move").click()
    test.wait(lambda d: gallery_ids(test) == [remaining[1]], "the moved photos to leave the gallery")
    assert api_ids(test, album["id"]) == [remaining[0], remaining[2]], api_ids(test, album["id"])
    test.shot("17-moved")
    viewer_deletes_and_shows_the_next(test, album["id"])
    test.server.send("DELETE", f"/api/notes/{note['id']}", None)
    test.server.send("DELETE", f"/api/notes/{album['id']}", None)
    test.driver.get(f"{test.server.url}/notes/{test.note_id}")
    test.wait(lambda d: test.tiles(), "the note page again")


def notes_list_previews_search_and_shortcuts(test):
    """The notes list shows a note's attachment count and the strip of its first thumbnails; a
    search marks the words it found and pages on with "More notes" past 50; Sort orders it by
    title or creation, kept by "More notes" and the address; ? lists the
    shortcuts, j moves through the notes, / goes to the search box, n makes a note."""
    test.driver.get(test.server.url + "/")
    item = f"#notes .note-item[data-id='{test.note_id}']"
    test.wait(lambda d: d.find_elements(By.CSS_SELECTOR, item + " .strip img"), "the note's strip of thumbnails")
    _, listing = test.server.get_json(f"/api/notes/{test.note_id}/attachments")
    count = test.driver.find_element(By.CSS_SELECTOR, item + " .note-count").text
    assert count == f"{len(listing['attachments'])} attachments", count
    strip = test.driver.find_elements(By.CSS_SELECTOR, item + " .strip img")
    assert len(strip) == min(4, len(listing["attachments"])), len(strip)
    test.wait(lambda d: all(test.js("return arguments[0].complete && arguments[0].naturalWidth > 0", image) for image in strip),
              "the strip's thumbnails to load")
    test.shot("00a-notes-list")

    # 55 notes whose text holds "lantern": the first 50, then "More notes" brings the rest.
    made = [test.server.send_json("POST", "/api/notes", {"title": f"Lantern {index:02}", "body": "a paper lantern"})[1]["id"]
            for index in range(55)]
    search = test.driver.find_element(By.ID, "search")
    # (The list also refreshes as the 55 arrive: wait for the search's own answer, marked.)
    test.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#notes .note-item")) == 50, "the list to show the new notes")
    search.send_keys("lant")
    marked = ("return [...document.querySelectorAll('#notes .note-item')]"
              ".map(i => [...i.querySelectorAll('mark')].map(m => m.textContent).join(' '))")
    test.wait(lambda d: test.js(marked) == ["Lant lant"] * 50, "the first 50 found, the words found marked")
    test.driver.find_element(By.ID, "notes-more").click()
    test.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#notes .note-item")) == 55, "More notes to add the last five")
    shown = test.js("return [...document.querySelectorAll('#notes .note-item')].map(i => i.dataset.id)")
    assert sorted(shown) == sorted(made) and len(set(shown)) == 55, "each note once"
    assert not test.driver.find_elements(By.ID, "notes-more"), "More notes after the last page"
    test.shot("00b-search-marked")

    # Sorted by title: the search's notes in name order, numbers by value, More notes keeps the order,
    # the address keeps it for a reload.
    Select(test.driver.find_element(By.ID, "sort")).select_by_value("title")
    titles = "return [...document.querySelectorAll('#notes .note-title')].map(t => t.textContent)"
    test.wait(lambda d: test.js(titles) == [f"Lantern {index:02}" for index in range(50)], "the list sorted by title")
    assert "sort=title" in test.driver.current_url and "q=lant" in test.driver.current_url, test.driver.current_url
    test.driver.find_element(By.ID, "notes-more").click()
    test.wait(lambda d: test.js(titles) == [f"Lantern {index:02}" for index in range(55)], "More notes in title order")
    test.driver.refresh()
    test.wait(lambda d: d.find_element(By.ID, "sort").get_attribute("value") == "title"
              and test.js(titles)[:3] == ["Lantern 00", "Lantern 01", "Lantern 02"], "the order kept by the address")
    Select(test.driver.find_element(By.ID, "sort")).select_by_value("created")
    _, by_creation = test.server.get_json("/api/notes?q=lant&sort=created&limit=50")
    test.wait(lambda d: test.js(titles) == [note["title"] for note in by_creation["notes"]], "the list by creation, newest first")
    Select(test.driver.find_element(By.ID, "sort")).select_by_value("updated")
    test.wait(lambda d: "sort=" not in test.driver.current_url, "back to the default order")
    search = test.driver.find_element(By.ID, "search")

    # The shortcuts.
    test.js("document.activeElement.blur()")
    ActionChains(test.driver).send_keys("?").perform()
    test.wait(lambda d: d.find_element(By.ID, "shortcuts").get_attribute("open") is not None, "? to show the shortcuts")
    audit(test, "the shortcuts")
    ActionChains(test.driver).send_keys(Keys.ESCAPE).perform()
    test.wait(lambda d: d.find_element(By.ID, "shortcuts").get_attribute("open") is None, "Escape to close them")
    ActionChains(test.driver).send_keys("j").perform()
    first = test.driver.find_elements(By.CSS_SELECTOR, "#notes .note-link")[0]
    assert test.js("return document.activeElement === arguments[0]", first), "j did not focus the first note"
    ActionChains(test.driver).send_keys("j").send_keys("k").perform()
    assert test.js("return document.activeElement === arguments[0]", first), "j then k did not come back"
    ActionChains(test.driver).send_keys("/").perform()
    assert test.js("return document.activeElement.id") == "search", "/ did not focus the search"
    search.clear()
    for note in made:
        test.server.send("DELETE", f"/api/notes/{note}?purge=true", None)
    test.js("document.activeElement.blur()")
    ActionChains(test.driver).send_keys("n").perform()
    test.wait(lambda d: "/notes/" in d.current_url, "n to open a new note")
    test.server.send("DELETE", "/api/notes/" + test.driver.current_url.rstrip("/").split("/")[-1] + "?purge=true", None)
    test.driver.get(f"{test.server.url}/notes/{test.note_id}")
    test.wait(lambda d: test.tiles(), "the note page again")
