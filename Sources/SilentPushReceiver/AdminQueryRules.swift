import SilentPushCore

/// The query parameters each admin route takes, read from the OpenAPI document the API serves
/// (`openapi.yaml` is their one place). A name a route does not take, or one it takes once
/// given twice, is refused: a misspelled filter (`?devcie=`) would otherwise answer every
/// record, and a test asserting on that answer would pass for the wrong reason.
struct AdminQueryRules: Sendable {
    struct Route: Sendable {
        let method: String
        let path: String
        let components: [String]
        /// Every query parameter the route takes.
        let names: Set<String>
        /// Those that may be given more than once (arrays, `explode: true`).
        let repeatable: Set<String>
    }

    let routes: [Route]

    /// The rules of `document`, an OpenAPI 3.1 document as JSON; none when it does not read.
    init(document: String) {
        guard let root = try? JSONValue.parse(document.utf8), case .object(let paths)? = root["paths"] else {
            routes = []
            return
        }
        let shared = root["components"]?["parameters"]
        func resolved(_ parameter: JSONValue) -> JSONValue? {
            guard case .string(let reference)? = parameter["$ref"] else { return parameter }
            let prefix = "#/components/parameters/"
            guard reference.hasPrefix(prefix) else { return nil }
            return shared?[String(reference.dropFirst(prefix.count))]
        }
        func parameters(_ value: JSONValue?) -> [JSONValue] {
            guard case .array(let values)? = value else { return [] }
            return values.compactMap(resolved)
        }
        var routes: [Route] = []
        for (path, item) in paths {
            guard case .object(let members) = item else { continue }
            let common = parameters(item["parameters"])
            for (method, operation) in members where method != "parameters" {
                var names: Set<String> = []
                var repeatable: Set<String> = []
                for parameter in common + parameters(operation["parameters"]) {
                    guard parameter["in"] == .string("query"), case .string(let name)? = parameter["name"] else { continue }
                    names.insert(name)
                    if parameter["schema"]?["type"] == .string("array") { repeatable.insert(name) }
                }
                routes.append(
                    Route(
                        method: method.uppercased(), path: path, components: path.split(separator: "/").map(String.init), names: names,
                        repeatable: repeatable))
            }
        }
        self.routes = routes
    }

    /// Why `query` is refused for `method` on `path`, in a line; nil when it may pass, or when
    /// no documented route has that method and path (the router answers 404 or 405).
    func refusal(method: String, path: String, query: [(name: String, value: String)]) -> String? {
        let method = method == "HEAD" ? "GET" : method
        let components = path.split(separator: "/")
        // The route whose fixed parts match most: `/v1/contents/body` before `/v1/contents/{x}`.
        let route =
            routes
            .filter { route in route.method == method && AdminRouteTable.matches(route.components, components) }
            .max { $0.components.count { !$0.hasPrefix("{") } < $1.components.count { !$0.hasPrefix("{") } }
        guard let route else { return nil }
        var seen: Set<String> = []
        for (name, _) in query where !name.isEmpty {
            guard route.names.contains(name) else {
                let takes = route.names.isEmpty ? "takes no query parameters" : "takes \(route.names.sorted().joined(separator: ", "))"
                return "unknown query parameter '\(name)': \(route.method) \(route.path) \(takes)"
            }
            guard seen.insert(name).inserted || route.repeatable.contains(name) else {
                return "query parameter '\(name)' is given twice: give it once"
            }
        }
        return nil
    }
}
