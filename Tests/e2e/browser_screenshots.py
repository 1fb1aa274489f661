#!/usr/bin/env python3
"""The README's screenshots, taken from a real run: a store with three notes (two of them with
photos from the corpus's free wallpapers), the notes list and a note's gallery, in a 1280 x 800
window. A step of browser_test.py (into test-output/browser) and, run alone by
`make screenshots`, the way docs/screenshots/ is made again.

Usage: browser_screenshots.py ATTACH_BINARY CORPUS_DIR OUTPUT_DIR
"""
import os
import secrets
import shutil
import sys
import tempfile

from selenium.webdriver.common.by import By

NOTES = [
    ("Garden, spring", "What came up after the rain: the yellow ones by the wall first.",
     ["good/YellowFlower.jpg", "good/FreshFlower.jpg", "good/LadyBird.jpg", "good/Garden.jpg", "good/GreenMeadow.jpg",
      "good/RainDrops.jpg", "good/TwoWings.jpg"]),
    ("Shopping", "bread, lemons, film for the old camera", []),
    ("Coast walk", "Dunes in the morning, storm by noon.", ["good/Dune.jpg", "good/Storm.jpg", "good/Aqua.jpg"]),
]


def readme_screenshots(test, output):
    """Makes the three notes, then saves notes-list.png and note-gallery.png into `output`."""
    made = []
    for title, body, photos in NOTES:
        _, note = test.server.send_json("POST", "/api/notes", {"title": title, "body": body})
        made.append(note["id"])
        for photo in photos:
            test.server.upload(note["id"], test.photo(photo))
    size = test.driver.get_window_size()
    test.driver.set_window_size(1280, 800)
    try:
        test.driver.get(test.server.url + "/?q=")
        test.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#notes .strip img")) >= 7, "the notes' strips")
        test.wait(lambda d: test.js("return [...document.querySelectorAll('#notes .strip img')].every(i => i.complete && i.naturalWidth > 0)"),
                  "every strip thumbnail")
        os.makedirs(output, exist_ok=True)
        test.driver.save_screenshot(os.path.join(output, "notes-list.png"))
        test.driver.get(f"{test.server.url}/notes/{made[0]}")
        test.wait(lambda d: test.loaded_thumbnails() == len(NOTES[0][2]), "the gallery's thumbnails")
        test.js("document.getElementById('photos-heading').scrollIntoView(); window.scrollBy(0, -80); document.activeElement.blur()")
        test.driver.save_screenshot(os.path.join(output, "note-gallery.png"))
    finally:
        test.driver.set_window_size(size["width"], size["height"])
        for note in made:
            test.server.send("DELETE", f"/api/notes/{note}?purge=true", None)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    from browser_test import BrowserTest, Server  # noqa: PLC0415 - the test's own server and browser
    binary, corpus, output = (os.path.abspath(argument) for argument in sys.argv[1:])
    scratch = tempfile.mkdtemp(prefix="attach-screenshots-")
    server = Server(binary, os.path.join(scratch, "store"), os.path.join(scratch, "server.log"), token=secrets.token_hex(24))
    test = None
    try:
        test = BrowserTest(server, corpus, scratch, binary, scratch)
        test.log_in()
        readme_screenshots(test, output)
        print(f"screenshots: {output}/notes-list.png, {output}/note-gallery.png")
    finally:
        if test:
            test.driver.quit()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
