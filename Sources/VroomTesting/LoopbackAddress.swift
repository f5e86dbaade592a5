import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension sockaddr_in {
    /// 127.0.0.1 at `port` (0: the kernel's pick when bound), for the tests'
    /// own sockets: they stay on loopback.
    public static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
