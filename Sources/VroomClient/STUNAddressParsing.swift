import Packets

/// "a.b.c.d:port" → a `STUNAddress` (IPv4 only: what tests and relays use).
enum STUNAddressParsing {
    static func parse(_ text: String) -> STUNAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let octets = text[..<colon].split(separator: ".").compactMap { UInt8($0) }
        guard octets.count == 4 else { return nil }
        return STUNAddress(ipv4: octets[0], octets[1], octets[2], octets[3], port: port)
    }
}
