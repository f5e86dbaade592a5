import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// REST calls to a `vroom-server --dev` on loopback, for process tests.
public enum DevREST {
    /// One call with the dev credentials (devkey/devsecret; none when
    /// `authorized` is false), a form body percent-encoded; the status and
    /// the JSON body (empty when it is not a JSON object).
    public static func call(
        port: Int, _ method: String, _ path: String, form: [String: String]? = nil, authorized: Bool = true
    ) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if authorized {
            request.setValue("Basic " + Data("devkey:devsecret".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        if let form {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            let encoded = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }
            request.httpBody = Data(encoded.joined(separator: "&").utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }
}
