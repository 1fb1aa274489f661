/// Building HTML safely: every interpolated value goes through ``escape(_:)``.
enum HTML {
    /// `text` with `& < > " '` replaced by entities, safe in element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The page scripts, deferred so they run in this order once the page is parsed: what they
    /// share first (`common.js`), the upload client, the viewer, the gallery, the keyboard shortcuts, then the page's own.
    private static func scripts(_ assets: StaticAssets) -> String {
        [
            "<script src=\"\(assets.url("common.js"))\" defer></script>",
            "<script src=\"\(assets.url("resumable-upload.js"))\" data-digest-worker=\"\(assets.url("digest-worker.js"))\" defer></script>",
            "<script src=\"\(assets.url("viewer.js"))\" defer></script>",
            "<script src=\"\(assets.url("gallery.js"))\" defer></script>",
            "<script src=\"\(assets.url("shortcuts.js"))\" defer></script>",
            "<script src=\"\(assets.url("app.js"))\" defer></script>",
        ].joined()
    }

    /// A complete page: the shared head (stylesheet, deferred script unless `script` is false,
    /// viewport) around `body`. With `feed`, the change feed's position when the page was
    /// rendered (`data-feed`), from which the page script follows changes live.
    static func page(title: String, assets: StaticAssets, bodyClass: String, script: Bool = true, feed: Int64? = nil, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="\(assets.url("app.css"))">
        <link rel="icon" href="\(assets.url("icon.svg"))" type="image/svg+xml">
        \(script ? scripts(assets) : "")
        </head>
        <body class="\(bodyClass)"\(feed.map { " data-feed=\"\($0)\"" } ?? "")>
        \(body)
        </body>
        </html>
        """
    }
}
