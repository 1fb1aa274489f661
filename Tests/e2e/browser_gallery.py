"""The gallery of a note with many photos, in the real browser: a step of browser_test.py.

The note page holds the first 100 tiles and the address of the next page; the rest arrive as
the gallery scrolls (the page script fetches each page's tiles, rendered by the server), in the
note's order and each once.
"""
import json
import urllib.request

from selenium.webdriver.common.by import By

FILES = 230


def gallery_loads_as_it_scrolls(test):
    server = test.server
    headers = {"Authorization": f"Bearer {server.token}"}

    def call(method, path, body=None, content_type=None):
        extra = {"Content-Type": content_type} if content_type else {}
        request = urllib.request.Request(server.url + path, data=body, method=method, headers={**headers, **extra})
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return json.loads(text) if text else None

    note = call("POST", "/api/notes", json.dumps({"title": "Many files"}).encode(), "application/json")["id"]
    for index in range(FILES):
        call("POST", f"/api/notes/{note}/attachments?filename=file-{index:03}.txt", f"file {index}\n".encode(), "text/plain")
    expected = [attachment["id"] for attachment in call("GET", f"/api/notes/{note}/attachments")["attachments"]]
    assert len(expected) == FILES, len(expected)

    request = urllib.request.Request(server.url + f"/notes/{note}", headers=headers)
    with urllib.request.urlopen(request) as response:
        html = response.read().decode()
    assert html.count('<li class="tile"') == 100, html.count('<li class="tile"')
    assert f'data-next="/notes/{note}/gallery?after=99"' in html, "the page names its next gallery page"

    test.driver.get(server.url + f"/notes/{note}")
    test.wait(lambda d: len(test.tiles()) >= 100, "the first page of tiles")
    pages = 0
    while test.driver.find_elements(By.ID, "gallery-more"):
        before = len(test.tiles())
        test.js("const more = document.getElementById('gallery-more'); if (more) more.scrollIntoView();")
        test.wait(lambda d: len(test.tiles()) > before or not d.find_elements(By.ID, "gallery-more"), "the next page of tiles")
        pages += 1
        assert pages <= 10, "the gallery kept asking for pages"
    shown = test.js("return [...document.querySelectorAll('#gallery .tile')].map((tile) => tile.dataset.id)")
    assert shown == expected, f"{len(shown)} tiles, in order: {shown == expected[:len(shown)]}"
    test.shot("15-gallery-all-pages")
    call("DELETE", f"/api/notes/{note}")
