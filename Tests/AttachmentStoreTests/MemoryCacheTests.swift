@testable import AttachmentStore
import Testing

@Suite("Memory cache")
struct MemoryCacheTests {
    @Test("evicts the least recently used values beyond its byte budget")
    func evictsLeastRecentlyUsed() {
        let cache = MemoryCache<String, Int>(byteLimit: 100)
        cache.setValue(1, forKey: "a", cost: 40)
        cache.setValue(2, forKey: "b", cost: 40)
        #expect(cache.value(forKey: "a") == 1)
        cache.setValue(3, forKey: "c", cost: 40)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1)
        #expect(cache.value(forKey: "c") == 3)
        #expect(cache.usage.cost == 80)
    }

    @Test("a value larger than the budget is not cached, and replacing a key updates its cost")
    func oversizedAndReplaced() {
        let cache = MemoryCache<String, Int>(byteLimit: 100)
        cache.setValue(1, forKey: "huge", cost: 101)
        #expect(cache.value(forKey: "huge") == nil)
        cache.setValue(1, forKey: "a", cost: 60)
        cache.setValue(2, forKey: "a", cost: 10)
        #expect(cache.usage.count == 1)
        #expect(cache.usage.cost == 10)
        cache.removeValue(forKey: "a")
        #expect(cache.usage.count == 0)
    }
}
