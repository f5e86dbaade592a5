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
    init(_ query: some PagedQuery) throws(RESTError) {
        pageSize = try FormText.integer(query.pageSize, or: .invalidParameter("PageSize must be an integer")) ?? Self.defaultPageSize
        page = try FormText.integer(query.page, or: .invalidParameter("Page must be an integer")) ?? 0
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
    func body<Item: Encodable>(key: String, items: [Item], hasNext: Bool, url: String, filters: [(String, String)]) -> Page<Item> {
        // Written by hand rather than with URLEncodedFormEncoder, which
        // orders parameters by a dictionary: page URLs keep the filters in
        // the order given, byte for byte.
        func pageURL(_ page: Int) -> String {
            let parameters = filters + [("PageSize", String(pageSize)), ("Page", String(page))]
            return url + "?" + FormEncoding.encode(parameters.map { (name: $0.0, value: $0.1) })
        }
        return Page(
            key: key, items: items,
            meta: Page<Item>.Meta(
                page: page, pageSize: pageSize, firstPageURL: pageURL(0),
                previousPageURL: page > 0 ? pageURL(page - 1) : nil, nextPageURL: hasNext ? pageURL(page + 1) : nil,
                url: pageURL(page), key: key))
    }
}

/// One page of a list: `{"rooms": [...], "meta": {...}}`, the items under
/// the list's own key.
struct Page<Item: Encodable>: Encodable {
    struct Meta: Encodable {
        var page: Int
        var pageSize: Int
        var firstPageURL: String
        @JSONNullable var previousPageURL: String?
        @JSONNullable var nextPageURL: String?
        var url: String
        var key: String

        enum CodingKeys: String, CodingKey {
            case page, pageSize = "page_size", firstPageURL = "first_page_url"
            case previousPageURL = "previous_page_url", nextPageURL = "next_page_url", url, key
        }
    }

    var key: String
    var items: [Item]
    var meta: Meta

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(items, forKey: Key(stringValue: key))
        try container.encode(meta, forKey: Key(stringValue: "meta"))
    }
}
