import Packets
import Testing
import VroomTesting

/// Reads every accessor of a parsed message; a trap here is the failure the
/// robustness tests look for.
func touchEveryAccessor(_ view: STUNMessageView) {
    _ = view.messageType.rawValue
    _ = view.messageType.description
    _ = view.length
    _ = view.transactionID.description
    var total = 0
    for attribute in view.attributes {
        total &+= Int(attribute.type.rawValue) &+ attribute.value.count
        _ = attribute.value.last
        _ = view.attribute(attribute.type)?.value.first
    }
    _ = view.username?.count
    _ = view.usernameEquals("evtj:h6vY")
    _ = view.usernameEquals(UnsafeRawBufferPointer(start: nil, count: 0))
    _ = view.priority
    _ = view.useCandidate
    _ = view.iceControlling
    _ = view.iceControlled
    _ = view.errorCode?.reason.count
    _ = view.xorMappedAddress?.description
    _ = view.mappedAddress?.description
    _ = view.software?.count
    _ = view.realm?.count
    _ = view.nonce?.count
    _ = view.messageIntegrity?.count
    _ = view.fingerprint
    _ = try? view.verifyMessageIntegrity(password: RFC5769.requestPassword)
    _ = try? view.verifyFingerprint()
    _ = total
}

@Suite struct STUNMessageViewTests {
    private func parse<R>(_ bytes: [UInt8], _ body: (STUNMessageView) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { raw in try body(STUNMessageView(validating: raw)) }
    }

    private func error(_ bytes: [UInt8]) -> PacketError? {
        bytes.withUnsafeBytes { raw in
            do throws(PacketError) {
                _ = try STUNMessageView(validating: raw)
                return nil
            } catch {
                return error
            }
        }
    }

    private func string(_ bytes: UnsafeRawBufferPointer?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    private func id(_ bytes: [UInt8]) -> STUNTransactionID? {
        bytes.withUnsafeBytes { STUNTransactionID(bytes: $0) }
    }

    // MARK: RFC 5769 samples

    @Test func sampleRequestFieldsMatchRFC5769Section2_1() throws {
        try parse(RFC5769.sampleRequest) { view in
            #expect(view.messageType == .bindingRequest)
            #expect(view.messageType.method == .binding)
            #expect(view.messageType.messageClass == .request)
            #expect(view.length == 0x58)
            #expect(view.transactionID == id(RFC5769.transactionID))
            #expect(view.transactionID == STUNTransactionID(high: 0xb7e7_a701_bc34_d686, low: 0xfa87_dfae))
            #expect(view.transactionID.description == "b7e7a701bc34d686fa87dfae")
            #expect(string(view.software) == "STUN test client")
            #expect(view.priority == 0x6e00_01ff)
            #expect(view.iceControlled == 0x932f_f9b1_5126_3b36)
            #expect(view.iceControlling == nil)
            #expect(view.useCandidate == false)
            #expect(string(view.username) == "evtj:h6vY")
            #expect(view.usernameEquals("evtj:h6vY"))
            #expect(!view.usernameEquals("evtj:h6vZ"))
            #expect(!view.usernameEquals("evtj:h6v"))
            #expect(!view.usernameEquals("evtj:h6vY "))
            #expect(Array("evtj:h6vY".utf8).withUnsafeBytes { view.usernameEquals($0) })
            #expect(!Array("evtj".utf8).withUnsafeBytes { view.usernameEquals($0) })
            #expect(view.xorMappedAddress == nil)
            #expect(view.errorCode == nil)
            #expect(view.messageIntegrity?.count == 20)
            #expect(view.fingerprint == 0xe57a_3bcf)
            #expect(view.attributes.map(\.type) == [
                .software, .priority, .iceControlled, .username, .messageIntegrity, .fingerprint,
            ])
            #expect(view.attributes.map(\.value.count) == [16, 4, 8, 9, 20, 4])
            try view.verifyMessageIntegrity(password: RFC5769.requestPassword)
            try Array(RFC5769.requestPassword.utf8).withUnsafeBytes { key in
                try view.verifyMessageIntegrity(key: key)
            }
            try view.verifyFingerprint()
            #expect(throws: PacketError.integrityMismatch) {
                try view.verifyMessageIntegrity(password: "VOkJxbRl1RmTxUk/WvJxBu")
            }
            #expect(throws: PacketError.integrityMismatch) {
                try view.verifyMessageIntegrity(password: "")
            }
        }
    }

    @Test func ipv4ResponseFieldsMatchRFC5769Section2_2() throws {
        try parse(RFC5769.sampleIPv4Response) { view in
            #expect(view.messageType == .bindingSuccessResponse)
            #expect(view.messageType.rawValue == 0x0101)
            #expect(view.transactionID == id(RFC5769.transactionID))
            #expect(string(view.software) == "test vector")
            let address = try #require(view.xorMappedAddress)
            #expect(address == STUNAddress(ipv4: 192, 0, 2, 1, port: 32853))
            #expect(address.family == .ipv4)
            #expect(address.ipv4 == 0xC000_0201)
            #expect(address.ipv6 == nil)
            #expect(address.port == 32853)
            #expect(address.description == "192.0.2.1:32853")
            #expect(address.withUnsafeAddressBytes { Array($0) } == [192, 0, 2, 1])
            #expect(view.mappedAddress == nil)
            #expect(view.username == nil)
            #expect(!view.usernameEquals(""))
            try view.verifyMessageIntegrity(password: RFC5769.requestPassword)
            try view.verifyFingerprint()
        }
    }

    @Test func ipv6ResponseFieldsMatchRFC5769Section2_3() throws {
        try parse(RFC5769.sampleIPv6Response) { view in
            #expect(view.messageType == .bindingSuccessResponse)
            let address = try #require(view.xorMappedAddress)
            #expect(address == STUNAddress(ipv6High: 0x2001_0db8_1234_5678, low: 0x0011_2233_4455_6677, port: 32853))
            #expect(address.family == .ipv6)
            #expect(address.ipv4 == nil)
            #expect(address.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
            #expect(address.withUnsafeAddressBytes { Array($0) } == [
                0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
            ])
            try view.verifyMessageIntegrity(password: RFC5769.requestPassword)
            try view.verifyFingerprint()
        }
    }

    @Test func longTermRequestFieldsMatchRFC5769Section2_4() throws {
        let key = RFC5769.longTermKey
        try parse(RFC5769.sampleLongTermRequest) { view in
            #expect(view.messageType == .bindingRequest)
            #expect(view.transactionID == id(RFC5769.longTermTransactionID))
            #expect(string(view.username) == RFC5769.longTermUsername)
            #expect(view.usernameEquals(RFC5769.longTermUsername))
            #expect(string(view.nonce) == RFC5769.longTermNonce)
            #expect(string(view.realm) == RFC5769.longTermRealm)
            #expect(view.fingerprint == nil)
            try key.withUnsafeBytes { try view.verifyMessageIntegrity(key: $0) }
            #expect(throws: PacketError.integrityMismatch) {
                try view.verifyMessageIntegrity(password: RFC5769.longTermPassword)
            }
            #expect(throws: PacketError.invalidField) { try view.verifyFingerprint() }
        }
    }

    /// Every single-byte change is caught: by the parser, by
    /// MESSAGE-INTEGRITY if the byte is covered by it, and by FINGERPRINT
    /// when there is one.
    @Test(arguments: [UInt8(0x01), 0x80, 0xFF])
    func flippingAnyByteFailsVerification(mask: UInt8) throws {
        let samples: [([UInt8], [UInt8], Bool)] = [
            (RFC5769.sampleRequest, Array(RFC5769.requestPassword.utf8), true),
            (RFC5769.sampleIPv4Response, Array(RFC5769.requestPassword.utf8), true),
            (RFC5769.sampleIPv6Response, Array(RFC5769.requestPassword.utf8), true),
            (RFC5769.sampleLongTermRequest, RFC5769.longTermKey, false),
        ]
        for (sample, key, hasFingerprint) in samples {
            // MESSAGE-INTEGRITY ends 8 bytes before the end when FINGERPRINT follows.
            let integrityEnd = hasFingerprint ? sample.count - 8 : sample.count
            for index in sample.indices {
                var bytes = sample
                bytes[index] ^= mask
                bytes.withUnsafeBytes { raw in
                    guard let view = try? STUNMessageView(validating: raw) else { return }
                    let integrityPasses = (try? key.withUnsafeBytes { try view.verifyMessageIntegrity(key: $0) }) != nil
                    let fingerprintPasses = (try? view.verifyFingerprint()) != nil
                    if index < integrityEnd {
                        #expect(!integrityPasses, "byte \(index) ^ \(mask)")
                    }
                    if hasFingerprint {
                        #expect(!fingerprintPasses, "byte \(index) ^ \(mask)")
                    }
                }
            }
        }
    }

    // MARK: Header validation

    @Test func refusesMalformedHeaders() {
        let good = RFC5769.sampleRequest
        #expect(error([]) == .truncated)
        #expect(error(Array(good.prefix(19))) == .truncated)
        #expect(error(Array(good.prefix(20))) == .truncated)  // length says 0x58 more
        #expect(error(Array(good.dropLast(4))) == .truncated)

        var topBits = good
        topBits[0] |= 0x40
        #expect(error(topBits) == .invalidType)
        topBits[0] = 0x80
        #expect(error(topBits) == .invalidType)

        var oddLength = good
        oddLength[3] = 0x57
        #expect(error(oddLength) == .invalidLength)
        var shortLength = good
        shortLength[3] = 0x54
        #expect(error(shortLength) == .invalidLength)
        #expect(error(good + [0, 0, 0, 0]) == .invalidLength)

        var cookie = good
        cookie[7] ^= 1
        #expect(error(cookie) == .invalidMagicCookie)

        // An RFC 3489 message (no cookie) is not accepted.
        var header = [UInt8](repeating: 0, count: 20)
        header[1] = 0x01
        #expect(error(header) == .invalidMagicCookie)
    }

    @Test func acceptsAHeaderWithoutAttributes() throws {
        var header: [UInt8] = [0x00, 0x01, 0x00, 0x00, 0x21, 0x12, 0xa4, 0x42]
        header += [UInt8](repeating: 0xAB, count: 12)
        try parse(header) { view in
            #expect(view.messageType == .bindingRequest)
            #expect(Array(view.attributes).isEmpty)
            #expect(view.username == nil)
            #expect(view.priority == nil)
            #expect(!view.useCandidate)
            #expect(throws: PacketError.invalidField) { try view.verifyMessageIntegrity(password: "x") }
            #expect(throws: PacketError.invalidField) { try view.verifyFingerprint() }
        }
    }

    @Test func refusesAttributesThatOverrunTheMessage() {
        var bytes = RFC5769.sampleRequest
        // USERNAME's length 9 -> 0x0D: with padding it would take 16 bytes
        // where 12 are left before MESSAGE-INTEGRITY; MI then overruns.
        bytes[20 + 20 + 8 + 12 + 3] = 0x41
        #expect(error(bytes) == .invalidField)

        // The last attribute (FINGERPRINT) claims 8 bytes where 4 are left.
        var last = RFC5769.sampleRequest
        last[last.count - 5] = 0x08
        #expect(error(last) == .invalidField)

        // Padding counts: a 1-byte value takes 4 bytes, so a 1-byte
        // attribute whose padding is cut short does not fit.
        let message: [UInt8] = [0x00, 0x01, 0x00, 0x04, 0x21, 0x12, 0xa4, 0x42] + [UInt8](repeating: 0, count: 12)
            + [0x80, 0x22, 0x00, 0x01]
        #expect(error(message) == .invalidField)
    }

    // MARK: Attributes after MESSAGE-INTEGRITY, FINGERPRINT placement

    /// A message with `attributes` (type, value) padded with zeros.
    private func message(_ attributes: [(UInt16, [UInt8])], type: UInt16 = 0x0001) -> [UInt8] {
        var body: [UInt8] = []
        for (t, v) in attributes {
            body += [UInt8(t >> 8), UInt8(t & 0xFF), UInt8(v.count >> 8), UInt8(v.count & 0xFF)] + v
            body += [UInt8](repeating: 0, count: (4 - v.count % 4) % 4)
        }
        return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(body.count >> 8), UInt8(body.count & 0xFF)]
            + [0x21, 0x12, 0xa4, 0x42] + RFC5769.transactionID + body
    }

    @Test func ignoresAttributesAfterMessageIntegrityExceptFingerprint() throws {
        let bytes = message([
            (0x0024, [0, 0, 0, 1]),
            (0x0008, [UInt8](repeating: 0, count: 20)),
            (0x0006, Array("late:user".utf8)),
            (0x0024, [0, 0, 0, 2]),
            (0x0025, []),
        ])
        try parse(bytes) { view in
            #expect(view.priority == 1)
            #expect(view.username == nil)
            #expect(!view.useCandidate)
            #expect(view.attributes.map(\.type) == [.priority, .messageIntegrity, .username, .priority, .useCandidate])
        }
    }

    @Test func usesOnlyTheFirstMessageIntegrityAndAFinalFingerprint() throws {
        let bytes = message([
            (0x8028, [1, 2, 3, 4]),  // FINGERPRINT not last: not a fingerprint
            (0x0006, Array("a:b".utf8)),
        ])
        try parse(bytes) { view in
            #expect(view.fingerprint == nil)
            #expect(view.attribute(.fingerprint) == nil)
            #expect(throws: PacketError.invalidField) { try view.verifyFingerprint() }
            #expect(view.usernameEquals("a:b"))
        }
        let wrongSizes = message([(0x0008, [1, 2, 3]), (0x8028, [1, 2])])
        try parse(wrongSizes) { view in
            #expect(view.messageIntegrity?.count == 3)
            #expect(view.fingerprint == nil)
            #expect(view.attribute(.fingerprint)?.value.count == 2)
            #expect(throws: PacketError.invalidField) { try view.verifyMessageIntegrity(password: "x") }
            #expect(throws: PacketError.invalidField) { try view.verifyFingerprint() }
        }
    }

    @Test func typedAccessorsRefuseWrongLengths() throws {
        let bytes = message([
            (0x0024, [0, 0, 1]),
            (0x802A, [1, 2, 3, 4]),
            (0x8029, [UInt8](repeating: 1, count: 9)),
            (0x0020, [0, 0x01, 0, 0, 1, 2, 3]),
            (0x0001, [0, 0x03, 0, 0, 1, 2, 3, 4]),
            (0x0009, [0, 0, 4]),
        ])
        try parse(bytes) { view in
            #expect(view.priority == nil)
            #expect(view.iceControlling == nil)
            #expect(view.iceControlled == nil)
            #expect(view.xorMappedAddress == nil)
            #expect(view.mappedAddress == nil)  // family 3
            #expect(view.errorCode == nil)
        }
    }

    @Test func readsErrorCodeAsClassTimes100PlusNumber() throws {
        let bytes = message([(0x0009, [0, 0, 4, 87] + Array("Role Conflict".utf8))], type: 0x0111)
        try parse(bytes) { view in
            #expect(view.messageType == .bindingErrorResponse)
            let error = try #require(view.errorCode)
            #expect(error.code == 487)
            #expect(string(error.reason) == "Role Conflict")
        }
        // Reserved bits are ignored; class 7 and number 100 are refused.
        try parse(message([(0x0009, [0xFF, 0xFF, 0xF8 | 3, 0])])) { #expect($0.errorCode?.code == 300) }
        try parse(message([(0x0009, [0, 0, 7, 0])])) { #expect($0.errorCode == nil) }
        try parse(message([(0x0009, [0, 0, 4, 100])])) { #expect($0.errorCode == nil) }
        try parse(message([(0x0009, [0, 0, 2, 0])])) { #expect($0.errorCode == nil) }
    }

    @Test func readsPlainMappedAddress() throws {
        let bytes = message([(0x0001, [0, 0x01, 0x80, 0x55, 192, 0, 2, 1])])
        try parse(bytes) { view in
            #expect(view.mappedAddress == STUNAddress(ipv4: 192, 0, 2, 1, port: 32853))
            #expect(view.xorMappedAddress == nil)
        }
    }

    // MARK: Message type, addresses

    @Test func messageTypeInterleavesMethodAndClassBits() {
        #expect(STUNMessageType.bindingRequest.rawValue == 0x0001)
        #expect(STUNMessageType.bindingIndication.rawValue == 0x0011)
        #expect(STUNMessageType.bindingSuccessResponse.rawValue == 0x0101)
        #expect(STUNMessageType.bindingErrorResponse.rawValue == 0x0111)
        // RFC 5766 Allocate (0x003): request 0x0003, error response 0x0113.
        #expect(STUNMessageType(method: STUNMethod(rawValue: 0x003), messageClass: .errorResponse).rawValue == 0x0113)
        #expect(STUNMessageType(method: STUNMethod(rawValue: 0xFFF), messageClass: .request).rawValue == 0x3EEF)
        for raw in UInt16(0)...0x3FFF {
            #expect(STUNMessageType(rawValue: raw).rawValue == raw)
        }
        #expect(STUNMessageType(rawValue: 0x0111).messageClass == .errorResponse)
        #expect(STUNMessageType(rawValue: 0x0111).method == .binding)
    }

    @Test func addressDescriptionsFollowRFC5952() {
        func v6(_ high: UInt64, _ low: UInt64) -> String {
            STUNAddress(ipv6High: high, low: low, port: 1).description
        }
        #expect(v6(0x2001_0db8_0000_0000, 1) == "[2001:db8::1]:1")
        #expect(v6(0, 0) == "[::]:1")
        #expect(v6(0, 1) == "[::1]:1")
        #expect(v6(0x2001_0db8_0000_0001, 0x0001_0001_0001_0001) == "[2001:db8:0:1:1:1:1:1]:1")
        #expect(v6(0x2001_0000_0000_0001, 0x0000_0000_0000_0001) == "[2001:0:0:1::1]:1")
        #expect(v6(0x0001_0000_0000_0002, 0x0000_0000_0003_0004) == "[1::2:0:0:3:4]:1")
        #expect(v6(0xfe80_0000_0000_0000, 0x0000_0000_0000_0000) == "[fe80::]:1")
        #expect(STUNAddress(ipv4: 0, port: 0).description == "0.0.0.0:0")
        #expect(STUNAddress(ipv4: 255, 255, 255, 255, port: 65535).description == "255.255.255.255:65535")
        let bytes: [UInt8] = [10, 0, 0, 7]
        #expect(bytes.withUnsafeBytes { STUNAddress(addressBytes: $0, port: 9) } == STUNAddress(ipv4: 10, 0, 0, 7, port: 9))
        #expect([UInt8](repeating: 0, count: 5).withUnsafeBytes { STUNAddress(addressBytes: $0, port: 9) } == nil)
    }

    @Test func transactionIDNeedsTwelveBytes() {
        #expect(id([1, 2, 3]) == nil)
        #expect(id([UInt8](repeating: 0, count: 13)) == nil)
        #expect(id([0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2]) == STUNTransactionID(high: 1, low: 2))
        #expect(STUNTransactionID(high: 1, low: 2).description == "000000000000000100000002")
        #expect(STUNTransactionID.random() != STUNTransactionID.random())
    }

    // MARK: Robustness

    @Test func randomBytesNeverTrap() {
        var g = SeededGenerator(seed: 0x5707_0001)
        var parsed = 0
        for _ in 0..<20_000 {
            let bytes = g.bytes(Int.random(in: 0...200, using: &g))
            bytes.withUnsafeBytes { raw in
                if let view = try? STUNMessageView(validating: raw) {
                    parsed += 1
                    touchEveryAccessor(view)
                }
            }
        }
        _ = parsed
    }

    /// Random attribute sections behind a valid header, so parsing gets past
    /// the cookie and exercises the attribute walk and the typed accessors.
    @Test func randomAttributeSectionsNeverTrap() {
        var g = SeededGenerator(seed: 0x5707_0002)
        var parsed = 0
        let types: [UInt16] = [0x0001, 0x0006, 0x0008, 0x0009, 0x0014, 0x0015, 0x0020, 0x0024, 0x0025, 0x8022,
                               0x8028, 0x8029, 0x802A, 0x1234]
        for _ in 0..<20_000 {
            var body: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &g) {
                let type = types.randomElement(using: &g) ?? 0
                let length = Int.random(in: 0...24, using: &g)
                // Sometimes lie about the length to hit the overrun checks.
                let declared = Bool.random(using: &g) ? length : Int.random(in: 0...40, using: &g)
                body += [UInt8(type >> 8), UInt8(type & 0xFF), 0, UInt8(declared)] + g.bytes(length)
                body += [UInt8](repeating: 0, count: (4 - length % 4) % 4)
            }
            let bytes = [UInt8.random(in: 0...3, using: &g), UInt8.random(in: 0...255, using: &g),
                         UInt8(body.count >> 8), UInt8(body.count & 0xFF), 0x21, 0x12, 0xa4, 0x42]
                + g.bytes(12) + body
            bytes.withUnsafeBytes { raw in
                if let view = try? STUNMessageView(validating: raw) {
                    parsed += 1
                    touchEveryAccessor(view)
                }
            }
        }
        #expect(parsed > 2_000)
    }

    @Test func mutatedSamplesNeverTrap() {
        var g = SeededGenerator(seed: 0x5707_0003)
        for _ in 0..<20_000 {
            var bytes = RFC5769.all.randomElement(using: &g) ?? []
            switch Int.random(in: 0..<4, using: &g) {
            case 0:  // bit flips
                for _ in 0..<Int.random(in: 1...4, using: &g) {
                    bytes[Int.random(in: 0..<bytes.count, using: &g)] ^= 1 << UInt8.random(in: 0...7, using: &g)
                }
            case 1:  // truncation
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &g)))
            case 2:  // truncation to a multiple of 4 with the length field patched to match
                let keep = max(20, Int.random(in: 0...bytes.count, using: &g) & ~3)
                bytes = Array(bytes.prefix(keep))
                bytes[2] = UInt8((keep - 20) >> 8)
                bytes[3] = UInt8((keep - 20) & 0xFF)
            default:  // random attribute length byte
                let at = 20 + 4 * Int.random(in: 0..<((bytes.count - 20) / 4), using: &g)
                bytes[at + 3] = UInt8.random(in: 0...255, using: &g)
            }
            bytes.withUnsafeBytes { raw in
                if let view = try? STUNMessageView(validating: raw) {
                    touchEveryAccessor(view)
                }
            }
        }
    }
}
