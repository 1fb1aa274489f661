import Imaging

/// A 12 MP JPEG to render, checked to be coded as its benchmark says.
final class RenderFixture: BenchmarkFixture {
    /// The file rendered each iteration.
    let path: String
    private let scratch: ScratchDirectory?

    private init(path: String, scratch: ScratchDirectory?) {
        self.path = path
        self.scratch = scratch
    }

    /// The corpus seed, `special/seed-3.7mb.jpg` (4032×3024, baseline).
    static func baseline() throws -> RenderFixture {
        let seed = try BenchmarkCorpus.file("special/seed-3.7mb.jpg")
        let fixture = RenderFixture(path: seed.path(percentEncoded: false), scratch: nil)
        try fixture.check(progressive: false)
        return fixture
    }

    /// The seed re-coded progressive, made in a scratch folder. (The corpus's own
    /// `special/progressive.jpg` is 2560×1920, 4.9 MP: too small to compare with the 12 MP seed.)
    static func progressive() async throws -> RenderFixture {
        let seed = try BenchmarkCorpus.file("special/seed-3.7mb.jpg")
        return try await ScratchDirectory.make { scratch in
            let copy = scratch.path("seed-progressive.jpg")
            try ProgressiveJPEG.make(from: seed, to: copy)
            let fixture = RenderFixture(path: copy.path(percentEncoded: false), scratch: scratch)
            try fixture.check(progressive: true)
            return fixture
        }
    }

    /// Checks that the file is a 4032×3024 JPEG coded progressive or not, as expected.
    private func check(progressive: Bool) throws {
        let header = try ImageProbe.header(ofFileAt: path)
        let coding = try ProgressiveJPEG.isProgressive(fileAt: path)
        guard header.format == .jpeg, header.width == 4032, header.height == 3024, coding == progressive else {
            throw SetupFailure(
                "\(path) is \(header.format) \(header.width)x\(header.height), progressive: \(coding.map(String.init) ?? "no frame header"); "
                    + "expected a 4032x3024 \(progressive ? "progressive" : "baseline") JPEG (rebuild the corpus with `make corpus`)"
            )
        }
    }

    func tearDown() async throws {
        try scratch?.remove()
    }
}
