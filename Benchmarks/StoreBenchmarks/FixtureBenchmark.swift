import Benchmark

/// What a benchmark measures against: made once before its iterations (untimed), torn down
/// after the last one.
protocol BenchmarkFixture: AnyObject {
    /// Removes whatever the fixture left on disk.
    func tearDown() async throws
}

/// Holds a benchmark's fixture between its setup and teardown hooks.
private final class FixtureSlot<Fixture: BenchmarkFixture> {
    var fixture: Fixture?
}

/// Registers an async benchmark `name` that runs `body` once per iteration against the
/// fixture `makeFixture` builds in the benchmark's setup hook.
func registerBenchmark<Fixture: BenchmarkFixture>(
    _ name: String, configuration: Benchmark.Configuration,
    fixture makeFixture: @escaping () async throws -> Fixture,
    body: @escaping (Benchmark, Fixture) async throws -> Void
) {
    let slot = FixtureSlot<Fixture>()
    Benchmark(name, configuration: configuration) { benchmark in
        guard let fixture = slot.fixture else { return benchmark.error("\(name): setup made no fixture") }
        try await body(benchmark, fixture)
    } setup: {
        slot.fixture = try await makeFixture()
    } teardown: {
        try await slot.fixture?.tearDown()
        slot.fixture = nil
    }
}

/// Registers a synchronous benchmark `name`: as the async form, without a task per iteration.
func registerBenchmark<Fixture: BenchmarkFixture>(
    _ name: String, configuration: Benchmark.Configuration,
    fixture makeFixture: @escaping () async throws -> Fixture,
    body: @escaping (Benchmark, Fixture) throws -> Void
) {
    let slot = FixtureSlot<Fixture>()
    Benchmark(name, configuration: configuration) { benchmark in
        guard let fixture = slot.fixture else { return benchmark.error("\(name): setup made no fixture") }
        try body(benchmark, fixture)
    } setup: {
        slot.fixture = try await makeFixture()
    } teardown: {
        try await slot.fixture?.tearDown()
        slot.fixture = nil
    }
}
