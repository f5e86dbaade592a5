import Packets
import Testing
import VroomTesting

@Suite struct STUNMessageWriterTests {
    /// Runs `build` with a writer over a `capacity`-byte buffer and returns the message.
    private func write(
        capacity: Int = 1500, type: STUNMessageType, id: [UInt8],
        _ build: (inout STUNMessageWriter) throws -> Void
    ) throws -> [UInt8] {
        let transactionID = try #require(id.withUnsafeBytes { STUNTransactionID(bytes: $0) })
        var out = [UInt8](repeating: 0xEE, count: capacity)
        let count = try out.withUnsafeMutableBytes { buffer in
            var writer = try STUNMessageWriter(buffer: buffer, type: type, transactionID: transactionID)
            try build(&writer)
            return writer.finish()
        }
        return Array(out.prefix(count))
    }

    // MARK: RFC 5769 samples, byte for byte

    private func buildSampleRequest(_ w: inout STUNMessageWriter) throws {
        try w.appendSoftware("STUN test client")
        try w.appendPriority(0x6e00_01ff)
        try w.appendICEControlled(0x932f_f9b1_5126_3b36)
        // RFC 5769 pads USERNAME with spaces.
        try w.appendUsername("evtj:h6vY", padding: 0x20)
        try w.appendMessageIntegrity(password: RFC5769.requestPassword)
        try w.appendFingerprint()
    }

    @Test func rebuildsTheSampleRequest() throws {
        let bytes = try write(type: .bindingRequest, id: RFC5769.transactionID, buildSampleRequest)
        #expect(bytes == RFC5769.sampleRequest)
    }

    @Test func rebuildsTheSampleIPv4Response() throws {
        let bytes = try write(type: .bindingSuccessResponse, id: RFC5769.transactionID) { w in
            try w.appendSoftware("test vector", padding: 0x20)
            try w.appendXORMappedAddress(STUNAddress(ipv4: 192, 0, 2, 1, port: 32853))
            try w.appendMessageIntegrity(password: RFC5769.requestPassword)
            try w.appendFingerprint()
        }
        #expect(bytes == RFC5769.sampleIPv4Response)
    }

    @Test func rebuildsTheSampleIPv6Response() throws {
        let bytes = try write(type: .bindingSuccessResponse, id: RFC5769.transactionID) { w in
            try w.appendSoftware("test vector", padding: 0x20)
            try w.appendXORMappedAddress(
                STUNAddress(ipv6High: 0x2001_0db8_1234_5678, low: 0x0011_2233_4455_6677, port: 32853))
            try Array(RFC5769.requestPassword.utf8).withUnsafeBytes { try w.appendMessageIntegrity(key: $0) }
            try w.appendFingerprint()
        }
        #expect(bytes == RFC5769.sampleIPv6Response)
    }

    @Test func rebuildsTheSampleLongTermRequest() throws {
        let key = RFC5769.longTermKey
        let bytes = try write(type: .bindingRequest, id: RFC5769.longTermTransactionID) { w in
            try Array(RFC5769.longTermUsername.utf8).withUnsafeBytes { try w.appendUsername($0) }
            try w.append(type: .nonce, bytes: RFC5769.longTermNonce.utf8)
            try w.append(type: .realm, bytes: RFC5769.longTermRealm.utf8)
            try key.withUnsafeBytes { try w.appendMessageIntegrity(key: $0) }
        }
        #expect(bytes == RFC5769.sampleLongTermRequest)
    }

    // MARK: Header, limits

    @Test func keepsTheHeaderLengthCurrent() throws {
        var out = [UInt8](repeating: 0, count: 200)
        try out.withUnsafeMutableBytes { buffer in
            var w = try STUNMessageWriter(
                buffer: buffer, type: .bindingIndication, transactionID: STUNTransactionID(high: 1, low: 2))
            #expect(w.length == 20)
            #expect(buffer[2] == 0 && buffer[3] == 0)
            try w.appendUseCandidate()
            #expect(w.length == 24)
            #expect(buffer[3] == 4)
            try w.append(type: 0x8000, value: UnsafeRawBufferPointer(start: nil, count: 0))
            try w.appendUsername("a")  // 1 byte + 3 padding
            #expect(w.length == 36)
            #expect(buffer[3] == 16)
            #expect(Array(buffer[32..<36]) == [UInt8(ascii: "a"), 0, 0, 0])
            let view = try STUNMessageView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<w.finish()]))
            #expect(view.messageType == .bindingIndication)
            #expect(view.transactionID == STUNTransactionID(high: 1, low: 2))
            #expect(view.useCandidate)
            #expect(view.usernameEquals("a"))
        }
    }

    /// A buffer of every size short of the full sample request: the append
    /// that does not fit throws `.bufferTooSmall`, writes nothing, and
    /// leaves a valid shorter message behind.
    @Test func refusesAppendsThatDoNotFitAndWritesNothing() throws {
        let transactionID = STUNTransactionID(high: 0xb7e7_a701_bc34_d686, low: 0xfa87_dfae)
        for capacity in 0..<RFC5769.sampleRequest.count {
            var out = [UInt8](repeating: 0xEE, count: capacity)
            out.withUnsafeMutableBytes { buffer in
                guard capacity >= 20 else {
                    #expect(throws: PacketError.bufferTooSmall) {
                        _ = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: transactionID)
                    }
                    return
                }
                var w: STUNMessageWriter
                do {
                    w = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: transactionID)
                } catch {
                    Issue.record("init failed with \(error)")
                    return
                }
                var lengthBefore = w.length
                do throws(PacketError) {
                    try w.appendSoftware("STUN test client")
                    lengthBefore = w.length
                    try w.appendPriority(0x6e00_01ff)
                    lengthBefore = w.length
                    try w.appendICEControlled(0x932f_f9b1_5126_3b36)
                    lengthBefore = w.length
                    try w.appendUsername("evtj:h6vY", padding: 0x20)
                    lengthBefore = w.length
                    try w.appendMessageIntegrity(password: RFC5769.requestPassword)
                    lengthBefore = w.length
                    try w.appendFingerprint()
                    Issue.record("capacity \(capacity) should not fit")
                } catch {
                    #expect(error == .bufferTooSmall)
                }
                #expect(w.length == lengthBefore)
                #expect(buffer[lengthBefore..<capacity].allSatisfy { $0 == 0xEE }, "capacity \(capacity)")
                #expect((try? STUNMessageView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<w.length]))) != nil)
                #expect(Array(buffer[0..<w.length]) == Array(RFC5769.sampleRequest[0..<w.length]).patchedLength(w.length))
            }
        }
    }

    @Test func refusesValuesOutOfRange() throws {
        var out = [UInt8](repeating: 0, count: 70_000)
        try out.withUnsafeMutableBytes { buffer in
            var w = try STUNMessageWriter(buffer: buffer, type: .bindingErrorResponse, transactionID: .random())
            #expect(throws: PacketError.valueOutOfRange) { try w.appendErrorCode(code: 299, reason: "") }
            #expect(throws: PacketError.valueOutOfRange) { try w.appendErrorCode(code: 700, reason: "") }
            #expect(throws: PacketError.valueOutOfRange) {
                try w.appendErrorCode(code: 400, reason: String(repeating: "x", count: 764))
            }
            #expect(throws: PacketError.valueOutOfRange) { try w.appendUsername(String(repeating: "u", count: 514)) }
            let big = [UInt8](repeating: 1, count: 65_536)
            #expect(throws: PacketError.valueOutOfRange) {
                try big.withUnsafeBytes { try w.append(type: .software, value: $0) }
            }
            #expect(w.length == 20)
            // Two 40,000-byte values overflow the 16-bit message length.
            try big.withUnsafeBytes { try w.append(type: 0x8001, value: UnsafeRawBufferPointer(rebasing: $0[0..<40_000])) }
            #expect(throws: PacketError.valueOutOfRange) {
                try big.withUnsafeBytes { try w.append(type: 0x8001, value: UnsafeRawBufferPointer(rebasing: $0[0..<40_000])) }
            }
            #expect(w.length == 40_024)
            let view = try STUNMessageView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<w.length]))
            #expect(view.length == 40_004)
        }
    }

    /// RFC 8489 section 14.3: USERNAME is "fewer than 509 bytes". The writer
    /// refuses 509 (both overloads); the view still returns a longer one.
    @Test func usernameMustBeShorterThan509Bytes() throws {
        var out = [UInt8](repeating: 0, count: 2000)
        try out.withUnsafeMutableBytes { buffer in
            var w = try STUNMessageWriter(buffer: buffer, type: .bindingRequest, transactionID: .random())
            #expect(throws: PacketError.valueOutOfRange) { try w.appendUsername(String(repeating: "u", count: 509)) }
            let long = [UInt8](repeating: 0x75, count: 509)
            #expect(throws: PacketError.valueOutOfRange) { try long.withUnsafeBytes { try w.appendUsername($0) } }
            #expect(w.length == 20)
            try w.appendUsername(String(repeating: "u", count: 508))
            try long.withUnsafeBytes { try w.appendUsername(UnsafeRawBufferPointer(rebasing: $0[0..<508])) }
            #expect(w.length == 20 + 2 * (4 + 508))
        }
        // A peer's oversized USERNAME parses: the view is lenient.
        let bytes = try write(type: .bindingRequest, id: RFC5769.transactionID) { w in
            try w.append(type: .username, bytes: [UInt8](repeating: 0x61, count: 600))
        }
        try bytes.withUnsafeBytes { raw in
            let view = try STUNMessageView(validating: raw)
            #expect(view.username?.count == 600)
        }
    }

    @Test func writesErrorCodesAsClassAndNumber() throws {
        let bytes = try write(type: .bindingErrorResponse, id: RFC5769.transactionID) { w in
            try w.appendErrorCode(code: 487, reason: "Role Conflict")
            try Array("Unauthorized".utf8).withUnsafeBytes { try w.appendErrorCode(code: 401, reason: $0) }
        }
        #expect(Array(bytes[20..<28]) == [0x00, 0x09, 0x00, 0x11, 0x00, 0x00, 0x04, 87])
        try bytes.withUnsafeBytes { raw in
            let view = try STUNMessageView(validating: raw)
            let error = try #require(view.errorCode)
            #expect(error.code == 487)
            #expect(String(decoding: error.reason, as: UTF8.self) == "Role Conflict")
            #expect(view.attributes.map(\.type) == [.errorCode, .errorCode])
        }
    }

    @Test func writesMappedAddressWithoutXOR() throws {
        let bytes = try write(type: .bindingSuccessResponse, id: RFC5769.transactionID) { w in
            try w.appendMappedAddress(STUNAddress(ipv4: 192, 0, 2, 1, port: 32853))
        }
        #expect(Array(bytes[20...]) == [0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x80, 0x55, 192, 0, 2, 1])
    }

    // MARK: Round trip

    private enum Item {
        case username([UInt8])
        case software(String)
        case priority(UInt32)
        case useCandidate
        case controlling(UInt64)
        case controlled(UInt64)
        case xorMapped(STUNAddress)
        case mapped(STUNAddress)
        case error(Int, String)
        case other(UInt16, [UInt8], UInt8)
    }

    private func randomAddress(_ g: inout SeededGenerator) -> STUNAddress {
        Bool.random(using: &g)
            ? STUNAddress(ipv4: g.next(), port: g.next())
            : STUNAddress(ipv6High: g.next(), low: g.next(), port: g.next())
    }

    private func randomASCII(_ g: inout SeededGenerator, _ count: Int) -> String {
        String(decoding: (0..<count).map { _ in UInt8.random(in: 0x20...0x7E, using: &g) }, as: UTF8.self)
    }

    /// Random messages (random attributes in random order, random keys)
    /// written, parsed back, every field equal, MI and FINGERPRINT verified.
    @Test func randomMessagesRoundTrip() throws {
        var g = SeededGenerator(seed: 0x5707_0010)
        // Unknown types that collide with none of the typed ones.
        let otherTypes: [UInt16] = [0x0014, 0x0015, 0x000A, 0x4000, 0x8023, 0xC001, 0xFFFF]
        for round in 0..<3_000 {
            var items: [Item] = []
            if Bool.random(using: &g) { items.append(.username(g.bytes(Int.random(in: 0...40, using: &g)))) }
            if Bool.random(using: &g) { items.append(.software(randomASCII(&g, Int.random(in: 0...30, using: &g)))) }
            if Bool.random(using: &g) { items.append(.priority(g.next())) }
            if Bool.random(using: &g) { items.append(.useCandidate) }
            if Bool.random(using: &g) { items.append(.controlling(g.next())) }
            if Bool.random(using: &g) { items.append(.controlled(g.next())) }
            if Bool.random(using: &g) { items.append(.xorMapped(randomAddress(&g))) }
            if Bool.random(using: &g) { items.append(.mapped(randomAddress(&g))) }
            if Bool.random(using: &g) {
                items.append(.error(Int.random(in: 300...699, using: &g), randomASCII(&g, Int.random(in: 0...20, using: &g))))
            }
            for _ in 0..<Int.random(in: 0...2, using: &g) {
                items.append(.other(
                    otherTypes.randomElement(using: &g) ?? 0xFFFF, g.bytes(Int.random(in: 0...30, using: &g)),
                    UInt8.random(in: 0...255, using: &g)))
            }
            items.shuffle(using: &g)
            let key: [UInt8]? = Bool.random(using: &g) ? g.bytes(Int.random(in: 0...64, using: &g)) : nil
            let withFingerprint = Bool.random(using: &g)
            let type = STUNMessageType(rawValue: UInt16.random(in: 0...0x3FFF, using: &g))
            let id = STUNTransactionID.random(using: &g)

            var out = [UInt8](repeating: 0, count: 2_000)
            let length = try out.withUnsafeMutableBytes { buffer in
                var w = try STUNMessageWriter(buffer: buffer, type: type, transactionID: id)
                for item in items {
                    switch item {
                    case .username(let bytes): try bytes.withUnsafeBytes { try w.appendUsername($0) }
                    case .software(let text): try w.appendSoftware(text)
                    case .priority(let value): try w.appendPriority(value)
                    case .useCandidate: try w.appendUseCandidate()
                    case .controlling(let value): try w.appendICEControlling(value)
                    case .controlled(let value): try w.appendICEControlled(value)
                    case .xorMapped(let address): try w.appendXORMappedAddress(address)
                    case .mapped(let address): try w.appendMappedAddress(address)
                    case .error(let code, let reason): try w.appendErrorCode(code: code, reason: reason)
                    case .other(let type, let value, let padding):
                        try value.withUnsafeBytes { try w.append(type: STUNAttributeType(type), value: $0, padding: padding) }
                    }
                }
                if let key { try key.withUnsafeBytes { try w.appendMessageIntegrity(key: $0) } }
                if withFingerprint { try w.appendFingerprint() }
                return w.finish()
            }
            let bytes = Array(out.prefix(length))
            try bytes.withUnsafeBytes { raw in
                let view = try STUNMessageView(validating: raw)
                #expect(view.messageType == type)
                #expect(view.transactionID == id)
                #expect(view.length == length - 20)
                var expectedTypes: [STUNAttributeType] = []
                var sawUsername = false
                for item in items {
                    switch item {
                    case .username(let bytes):
                        expectedTypes.append(.username)
                        sawUsername = true
                        #expect(view.username.map(Array.init) == bytes)
                        #expect(bytes.withUnsafeBytes { view.usernameEquals($0) })
                        #expect(view.usernameEquals(String(decoding: bytes, as: UTF8.self)) == (String(validating: bytes, as: UTF8.self) != nil))
                    case .software(let text):
                        expectedTypes.append(.software)
                        #expect(view.software.map { String(decoding: $0, as: UTF8.self) } == text)
                    case .priority(let value):
                        expectedTypes.append(.priority)
                        #expect(view.priority == value)
                    case .useCandidate:
                        expectedTypes.append(.useCandidate)
                        #expect(view.useCandidate)
                    case .controlling(let value):
                        expectedTypes.append(.iceControlling)
                        #expect(view.iceControlling == value)
                    case .controlled(let value):
                        expectedTypes.append(.iceControlled)
                        #expect(view.iceControlled == value)
                    case .xorMapped(let address):
                        expectedTypes.append(.xorMappedAddress)
                        #expect(view.xorMappedAddress == address)
                    case .mapped(let address):
                        expectedTypes.append(.mappedAddress)
                        #expect(view.mappedAddress == address)
                    case .error(let code, let reason):
                        expectedTypes.append(.errorCode)
                        #expect(view.errorCode?.code == code)
                        #expect(view.errorCode.map { String(decoding: $0.reason, as: UTF8.self) } == reason)
                    case .other(let type, _, _):
                        expectedTypes.append(STUNAttributeType(type))
                    }
                }
                if !sawUsername { #expect(view.username == nil) }
                if let key {
                    expectedTypes.append(.messageIntegrity)
                    try key.withUnsafeBytes { try view.verifyMessageIntegrity(key: $0) }
                    // Not `key + [0]`: HMAC zero-pads keys to 64 bytes, so that is the same key.
                    var wrong = key.isEmpty ? [0] : key
                    wrong[wrong.count - 1] ^= 0x01
                    #expect(throws: PacketError.integrityMismatch, "round \(round)") {
                        try wrong.withUnsafeBytes { try view.verifyMessageIntegrity(key: $0) }
                    }
                } else {
                    #expect(view.messageIntegrity == nil)
                }
                if withFingerprint {
                    expectedTypes.append(.fingerprint)
                    try view.verifyFingerprint()
                } else {
                    #expect(view.fingerprint == nil)
                }
                #expect(view.attributes.map(\.type) == expectedTypes, "round \(round)")
                // Every value comes back, in order, unpadded.
                let otherValues = items.compactMap { item -> [UInt8]? in
                    if case .other(_, let value, _) = item { value } else { nil }
                }
                let parsedOtherValues = view.attributes.filter { attribute in
                    items.contains { if case .other(attribute.type.rawValue, _, _) = $0 { true } else { false } }
                }.map { Array($0.value) }
                #expect(parsedOtherValues == otherValues, "round \(round)")
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// The prefix of a sample with its header length set to end at `count`.
    fileprivate func patchedLength(_ count: Int) -> [UInt8] {
        var copy = self
        if copy.count >= 4 {
            copy[2] = UInt8((count - 20) >> 8)
            copy[3] = UInt8((count - 20) & 0xFF)
        }
        return copy
    }
}
