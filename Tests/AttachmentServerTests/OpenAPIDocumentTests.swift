@testable import AttachmentServer
import Foundation
import Hummingbird
import Testing
import Yams

@Suite("OpenAPI document", .timeLimit(.minutes(3)))
struct OpenAPIDocumentTests {
    /// The document as the server serves it, parsed.
    static func document() async throws -> [String: Any] {
        let assets = StaticAssets.load()
        let asset = try #require(assets["openapi.yaml"])
        let text = String(buffer: asset.bytes)
        return try #require(try Yams.load(yaml: text) as? [String: Any])
    }

    /// Every route the router has, as `METHOD /path/{param}` (a `HEAD` the router derives from a
    /// `GET` is no route of its own; an explicit one, such as tus's, is).
    static func routes() async throws -> Set<String> {
        let fixture = try ServerFixture()
        let dependencies = try await ServerDependencies.make(fixture.configuration)
        return Set(buildRouter(dependencies).routes.compactMap { route -> String? in
            // The login page's own files have routes of their own, documented as /static/{name}.
            if route.path.description.hasPrefix("/static/") || route.path.description.hasPrefix("static/") { return "GET /static/{name}" }
            let path = route.path.description.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.joined(separator: "/")
            return "\(route.method.rawValue) /\(path)"
        })
    }

    @Test("the document lists exactly the routes the server has")
    func documentMatchesRoutes() async throws {
        let paths = try #require(try await Self.document()["paths"] as? [String: Any])
        let methods: Set<String> = ["get", "put", "post", "patch", "delete", "head", "options"]
        var documented = Set<String>()
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any])
            for key in operations.keys where methods.contains(key) {
                documented.insert("\(key.uppercased()) \(path == "/" ? "/" : path)")
            }
        }
        let routes = try await Self.routes()
        #expect(routes.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
        #expect(documented.subtracting(routes).sorted() == [], "documented operations with no route")
        #expect(routes.count >= 17)
    }

    @Test("the document is OpenAPI 3.1 and every operation has an id and responses")
    func operationsAreComplete() async throws {
        let document = try await Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        var ids = Set<String>()
        for (path, item) in paths {
            for (method, value) in try #require(item as? [String: Any]) where method != "parameters" {
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                let id = try #require(operation["operationId"] as? String, "\(method) \(path) has no operationId")
                #expect(ids.insert(id).inserted, "operationId \(id) is used twice")
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(!responses.isEmpty)
            }
        }
    }

    @Test("every $ref in the document resolves")
    func referencesResolve() async throws {
        let document = try await Self.document()
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in references {
            var node: Any? = document
            for key in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(key)] }
            #expect(node != nil, "\(reference) does not resolve")
        }
    }
}
