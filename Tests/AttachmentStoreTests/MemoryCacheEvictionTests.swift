@testable import AttachmentStore
import Testing

/// The LRU of ``MemoryCache`` beyond ``MemoryCacheTests``: the budget's exact edge, what a
/// large value evicts, what counts as a use (reads and replacements, not misses), and the
/// bulk removals the thumbnail pipeline and the image store rely on.
@Suite("Memory cache eviction")
struct MemoryCacheEvictionTests {
    @Test("values filling the budget exactly are all kept; one more byte evicts the oldest")
    func exactBudget() {
        let cache = MemoryCache<String, Int>(byteLimit: 100)
        cache.setValue(1, forKey: "a", cost: 50)
        cache.setValue(2, forKey: "b", cost: 50)
        #expect(cache.usage.count == 2 && cache.usage.cost == 100)
        cache.setValue(3, forKey: "c", cost: 1)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.value(forKey: "b") == 2 && cache.value(forKey: "c") == 3)
        #expect(cache.usage.cost == 51)
    }

    @Test("a value costing the whole budget is kept, and evicts everything else")
    func wholeBudget() {
        let cache = MemoryCache<String, Int>(byteLimit: 100)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.setValue(index, forKey: key, cost: 30) }
        cache.setValue(9, forKey: "big", cost: 100)
        #expect(cache.usage.count == 1 && cache.usage.cost == 100)
        #expect(cache.value(forKey: "big") == 9)
    }

    @Test("a large value evicts as many of the least recently used as it needs, and no more")
    func evictsSeveral() {
        let cache = MemoryCache<Int, Int>(byteLimit: 100)
        for key in 0..<10 { cache.setValue(key, forKey: key, cost: 10) }
        cache.setValue(99, forKey: 99, cost: 35)
        #expect((0..<4).allSatisfy { cache.value(forKey: $0) == nil })
        #expect((4..<10).allSatisfy { cache.value(forKey: $0) == $0 })
        #expect(cache.usage.count == 7 && cache.usage.cost == 95)
    }

    @Test("reading a value makes it the most recently used; a miss changes nothing")
    func readsRefresh() {
        let cache = MemoryCache<String, Int>(byteLimit: 30)
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "b", cost: 10)
        cache.setValue(3, forKey: "c", cost: 10)
        _ = cache.value(forKey: "a")
        _ = cache.value(forKey: "missing")
        cache.setValue(4, forKey: "d", cost: 10)
        #expect(cache.value(forKey: "b") == nil, "b was the least recently used")
        #expect(cache.value(forKey: "a") == 1 && cache.value(forKey: "c") == 3 && cache.value(forKey: "d") == 4)
    }

    @Test("replacing a value makes it the most recently used, with its new value and cost")
    func replacementRefreshes() {
        let cache = MemoryCache<String, String>(byteLimit: 30)
        cache.setValue("a1", forKey: "a", cost: 10)
        cache.setValue("b1", forKey: "b", cost: 10)
        cache.setValue("a2", forKey: "a", cost: 15)
        cache.setValue("c1", forKey: "c", cost: 10)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == "a2")
        #expect(cache.usage.cost == 25)
    }

    @Test("replacing a value with one over the budget drops the old value too")
    func oversizedReplacement() {
        let cache = MemoryCache<String, Int>(byteLimit: 10)
        cache.setValue(1, forKey: "a", cost: 5)
        cache.setValue(2, forKey: "a", cost: 11)
        #expect(cache.value(forKey: "a") == nil)
        #expect(cache.usage.count == 0 && cache.usage.cost == 0)
    }

    @Test("values that cost nothing are kept even in a cache of no budget")
    func zeroCost() {
        let cache = MemoryCache<String, Int>(byteLimit: 0)
        cache.setValue(1, forKey: "free", cost: 0)
        cache.setValue(2, forKey: "paid", cost: 1)
        #expect(cache.value(forKey: "free") == 1 && cache.value(forKey: "paid") == nil)
        #expect(cache.byteLimit == 0)
    }

    @Test("removing by a key test drops exactly the matching values and their cost, keeping the order of the rest")
    func removeWhere() {
        let cache = MemoryCache<String, Int>(byteLimit: 100)
        for (index, key) in ["hash1/200", "hash1/400", "hash2/200", "hash3/200"].enumerated() {
            cache.setValue(index, forKey: key, cost: 10 + index)
        }
        cache.removeAll { $0.hasPrefix("hash1/") }
        #expect(cache.usage.count == 2 && cache.usage.cost == 25)
        #expect(cache.value(forKey: "hash1/200") == nil && cache.value(forKey: "hash1/400") == nil)
        // hash2 is now older than hash3: a value needing room evicts it first.
        cache.setValue(9, forKey: "new", cost: 80)
        #expect(cache.value(forKey: "hash2/200") == nil && cache.value(forKey: "hash3/200") == 3)
    }

    @Test("removing everything empties the cache, which then fills again from nothing")
    func removeAll() {
        let cache = MemoryCache<Int, Int>(byteLimit: 20)
        for key in 0..<5 { cache.setValue(key, forKey: key, cost: 4) }
        cache.removeAll()
        #expect(cache.usage.count == 0 && cache.usage.cost == 0)
        #expect(cache.value(forKey: 0) == nil)
        for key in 10..<15 { cache.setValue(key, forKey: key, cost: 4) }
        #expect(cache.usage.count == 5 && (10..<15).allSatisfy { cache.value(forKey: $0) == $0 })
    }

    @Test("removing an absent key, or the same key twice, changes nothing else")
    func removeAbsent() {
        let cache = MemoryCache<String, Int>(byteLimit: 20)
        cache.setValue(1, forKey: "a", cost: 5)
        cache.setValue(2, forKey: "b", cost: 5)
        cache.removeValue(forKey: "missing")
        cache.removeValue(forKey: "a")
        cache.removeValue(forKey: "a")
        #expect(cache.usage.count == 1 && cache.usage.cost == 5 && cache.value(forKey: "b") == 2)
        cache.setValue(3, forKey: "c", cost: 15)
        #expect(cache.value(forKey: "b") == 2 && cache.value(forKey: "c") == 3, "the removed entries left no links behind")
    }

    @Test("many tasks setting and reading at once never leave the cache over its budget or its count wrong")
    func concurrentUse() async {
        let cache = MemoryCache<Int, Int>(byteLimit: 1000)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        let key = (task * 500 + index) % 300
                        cache.setValue(key, forKey: key, cost: 1 + key % 17)
                        _ = cache.value(forKey: (key * 7) % 300)
                        if index % 50 == 0 { cache.removeValue(forKey: key) }
                    }
                }
            }
        }
        let usage = cache.usage
        #expect(usage.cost <= 1000)
        let present = (0..<300).filter { cache.value(forKey: $0) != nil }
        #expect(present.count == usage.count)
        #expect(present.reduce(0) { $0 + 1 + $1 % 17 } == usage.cost)
    }
}
