/// One page of a list, numbered from 0 as Twilio's `Page` parameter is.
/// `hasNextPage` tells the REST layer whether to print a `next_page_url`.
public struct Page<Element: Sendable>: Sendable {
    public var items: [Element]
    /// The page index asked for (0-based, never negative).
    public var page: Int
    /// The page size used (the one asked for, clamped to 1...1000).
    public var pageSize: Int
    /// True when at least one more item follows this page.
    public var hasNextPage: Bool

    public init(items: [Element], page: Int, pageSize: Int, hasNextPage: Bool) {
        self.items = items
        self.page = page
        self.pageSize = pageSize
        self.hasNextPage = hasNextPage
    }

    /// Twilio's page sizes: default 50, at most 1000.
    public static var defaultPageSize: Int { 50 }
    public static var maxPageSize: Int { 1000 }
}
