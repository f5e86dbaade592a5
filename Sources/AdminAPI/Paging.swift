import Foundation

/// Twilio's list paging (PROTOCOL.md section 6): `PageSize` (default 50,
/// 1...1000) and `Page` (from 0), and the `meta` object whose page URLs are
/// absolute and keep the list's filters.
struct Paging: Sendable, Equatable {
    var page: Int
    var pageSize: Int

    static let defaultPageSize = 50
    static let maxPageSize = 1000

    /// 20001 (400) for a size outside 1...1000, a negative page or non-integers.
    init(_ query: FormBody) throws(RESTError) {
        pageSize = try query.integer("PageSize", or: .invalidParameter("PageSize must be an integer")) ?? Self.defaultPageSize
        page = try query.integer("Page", or: .invalidParameter("Page must be an integer")) ?? 0
        guard (1...Self.maxPageSize).contains(pageSize) else {
            throw .invalidParameter("PageSize must be between 1 and \(Self.maxPageSize)")
        }
        guard page >= 0 else { throw .invalidParameter("Page must not be negative") }
    }

    init(page: Int, pageSize: Int) {
        self.page = page
        self.pageSize = pageSize
    }

    /// Index of the first item of this page, nil when it would overflow.
    var offset: Int? {
        let (offset, overflow) = page.multipliedReportingOverflow(by: pageSize)
        return overflow ? nil : offset
    }

    /// This page of `items` and whether more follow.
    func slice<Element>(_ items: [Element]) -> (items: [Element], hasNext: Bool) {
        guard let offset, offset < items.count else { return ([], false) }
        let end = min(items.count, offset + pageSize)
        return (Array(items[offset..<end]), end < items.count)
    }

    /// The list body: `{key: items, "meta": {...}}`.
    /// - Parameters:
    ///   - url: the list's absolute URL without query.
    ///   - filters: the filters given, in the order they print.
    func body(key: String, items: [[String: Any]], hasNext: Bool, url: String, filters: [(String, String)]) -> [String: Any] {
        func pageURL(_ page: Int) -> String {
            let parameters = filters + [("PageSize", String(pageSize)), ("Page", String(page))]
            return url + "?" + FormEncoding.encode(parameters.map { (name: $0.0, value: $0.1) })
        }
        return [
            key: items,
            "meta": [
                "page": page,
                "page_size": pageSize,
                "first_page_url": pageURL(0),
                "previous_page_url": page > 0 ? pageURL(page - 1) : NSNull(),
                "next_page_url": hasNext ? pageURL(page + 1) : NSNull(),
                "url": pageURL(page),
                "key": key,
            ] as [String: Any],
        ]
    }
}
