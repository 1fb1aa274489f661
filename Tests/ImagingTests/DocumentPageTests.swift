import Foundation
import Glibc
import HelperProcess
@testable import Imaging
import Testing
import TestSupport

/// PDFs: their pages counted by pdfinfo and their first page drawn by pdftoppm, both limited
/// child processes; a long, broken or hostile document is answered in time.
@Suite("PDF pages and first-page thumbnails", .timeLimit(.minutes(2)))
struct DocumentPageTests {
    static func path(_ name: String) throws -> String { try Corpus.file(name).path(percentEncoded: false) }

    @Test func aDocumentsPagesAndFirstPageSizeAreRead() async throws {
        let document = try Self.path("document/three-pages.pdf")
        #expect(try await OwnThread.run { try DocumentProbe.header(ofFileAt: document) } == DocumentHeader(pageCount: 3, width: 612, height: 792))
    }

    @Test func theFirstPageIsTheThumbnailAsPopplerDrawsIt() async throws {
        let document = try Self.path("document/three-pages.pdf")
        let directory = try TemporaryDirectory("pdf")
        let thumbnail = try await OwnThread.run { try DocumentPageRenderer.render(fileAt: document, maxPixelSize: 200) }
        #expect(thumbnail.encoding == .jpeg)
        #expect((thumbnail.width, thumbnail.height) == (155, 200))
        // The reference: poppler's own drawing of page 1 at that size.
        let reference = directory.appending("reference").path(percentEncoded: false)
        let outcome = try await ChildProcess.run("/usr/bin/pdftoppm", ["-f", "1", "-l", "1", "-scale-to", "200", "-png", "-singlefile", document, reference])
        #expect(outcome.exitCode == 0, "\(outcome.stderr)")
        let ours = directory.appending("ours.jpg").path(percentEncoded: false)
        try Data(thumbnail.data).write(to: URL(filePath: ours))
        let difference = try await ImageDifference.between(ours, reference + ".png", in: directory)
        #expect(difference.mean < 8, "\(difference)")
    }

    @Test func aTenThousandPageDocumentIsCountedAndOnlyItsFirstPageDrawn() async throws {
        let document = try Self.path("document/10000-pages.pdf")
        let started = ContinuousClock.now
        let header = try await OwnThread.run { try DocumentProbe.header(ofFileAt: document) }
        let thumbnail = try await OwnThread.run { try DocumentPageRenderer.render(fileAt: document, probed: true, maxPixelSize: 200) }
        #expect(header.pageCount == 10_000)
        #expect((thumbnail.width, thumbnail.height) == (155, 200))
        // Under the helpers' own limits, even on a machine the full pass loads.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test(arguments: ["document/truncated.pdf", "good/Dune.jpg", "bad/text.png", "video/clip-h264.mp4"])
    func aFileThatIsNotAWholeDocumentIsRefusedAsUnreadable(_ name: String) async throws {
        let file = try Self.path(name)
        await #expect {
            _ = try await OwnThread.run { try DocumentPageRenderer.render(fileAt: file, maxPixelSize: 200) }
        } throws: { error in
            guard case ImagingError.unreadable(path: file, _) = error else { return false }
            return true
        }
    }

    @Test(arguments: [
        "Pages: 0\nPage size: 612 x 792 pts\n", "Pages: 2000000\nPage size: 612 x 792 pts\n", "Pages: 3\n",
        "Pages: 3\nPage size: 1e9 x 792 pts\n", "Pages: 3\nPage size: nan x 792 pts\n", "Pages: many\nPage size: 612 x 792 pts\n", "",
    ])
    func anImplausibleAnswerOfPdfinfoIsRefused(_ answer: String) {
        #expect(throws: ImagingError.self) { try DocumentProbe.header(fromInfo: answer, path: "doc.pdf") }
    }

    @Test func theFirstPagesOwnSizeWinsOverTheDocumentsDefault() throws {
        let answer = "Title: x\nPages:          12\nPage    1 size: 842 x 595 pts (A4)\nPage size:      612 x 792 pts\n"
        #expect(try DocumentProbe.header(fromInfo: answer, path: "doc.pdf") == DocumentHeader(pageCount: 12, width: 842, height: 595))
    }

    @Test func aDrawingThatNeverEndsIsStoppedAtItsTimeLimit() async throws {
        let directory = try TemporaryDirectory("pdf-loop")
        let script = try ExecutableScript.write("while :; do :; done", named: "pdftoppm", in: directory)
        let tools = DocumentTools(pdftoppmPath: script, renderLimits: ChildProcessLimits(wallClock: .milliseconds(700)))
        let document = try Self.path("document/three-pages.pdf")
        let started = ContinuousClock.now
        await #expect {
            _ = try await OwnThread.run { try DocumentPageRenderer.render(fileAt: document, maxPixelSize: 200, tools: tools) }
        } throws: { error in
            guard case ImagingError.unreadable(_, .helper(.timedOut)) = error else { return false }
            return true
        }
        // It would spin forever: stopped at its limit, with room for a machine the full pass loads.
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
