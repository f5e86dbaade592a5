// fuzz-module: Packets
// libFuzzer entry point for STUNMessageView and STUNMessageWriter. Built by
// scripts/fuzz.sh together with Sources/Packets/*.swift into one module (so
// no `import Packets`, and internal API is reachable).
//
// For every input that parses: touch every accessor, verify
// MESSAGE-INTEGRITY with a fixed key and FINGERPRINT, then
//  1. rebuild the message attribute by attribute with the writer (re-signing
//     MESSAGE-INTEGRITY and FINGERPRINT), which must reproduce the input byte
//     for byte whenever the input's padding was uniform and its MAC and CRC
//     were right, and must always parse back to the same attributes;
//  2. write the typed ICE fields into a fresh message and read them back.
// Any disagreement is a `fatalError`, which libFuzzer reports as a crash.

/// The RFC 5769 password, so the seed corpus's samples verify.
private let fuzzKey: [UInt8] = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func stunFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let view = try? STUNMessageView(validating: bytes) else { return 0 }
    touchEveryAccessor(view)
    let integrityOK = fuzzKey.withUnsafeBytes { (try? view.verifyMessageIntegrity(key: $0)) != nil }
    let fingerprintOK = (try? view.verifyFingerprint()) != nil
    rebuildAttributeByAttribute(view, integrityOK: integrityOK, fingerprintOK: fingerprintOK)
    rebuildTypedFields(view)
    return 0
}

private func touchEveryAccessor(_ view: STUNMessageView) {
    var sink = Int(view.messageType.rawValue) &+ view.length &+ Int(truncatingIfNeeded: view.transactionID.high)
    for attribute in view.attributes {
        sink &+= Int(attribute.type.rawValue) &+ Int(attribute.value.last ?? 0)
        sink &+= view.attribute(attribute.type)?.value.count ?? 0
    }
    sink &+= view.username?.count ?? 0
    sink &+= view.usernameEquals("evtj:h6vY") ? 1 : 0
    sink &+= Int(view.priority ?? 0) &+ (view.useCandidate ? 1 : 0)
    sink &+= Int(truncatingIfNeeded: (view.iceControlling ?? 0) &+ (view.iceControlled ?? 0))
    sink &+= (view.errorCode?.code ?? 0) &+ (view.errorCode?.reason.count ?? 0)
    sink &+= view.xorMappedAddress?.description.count ?? 0
    sink &+= view.mappedAddress?.description.count ?? 0
    sink &+= (view.software?.count ?? 0) &+ (view.realm?.count ?? 0) &+ (view.nonce?.count ?? 0)
    sink &+= (view.messageIntegrity?.count ?? 0) &+ Int(view.fingerprint ?? 0)
    if sink == 0x5354_554E { print("") }  // keeps the reads from being optimised away
}

/// Step 1: same type, ID and attributes in the same order; the first
/// 20-byte MESSAGE-INTEGRITY and a final 4-byte FINGERPRINT re-signed.
private func rebuildAttributeByAttribute(_ view: STUNMessageView, integrityOK: Bool, fingerprintOK: Bool) {
    let bytes = view.bytes
    var out = [UInt8](repeating: 0, count: bytes.count)
    var uniformPadding = true
    var signedIntegrity = false
    var signedFingerprint = false
    let written = out.withUnsafeMutableBytes { buffer -> Int in
        do {
            var writer = try STUNMessageWriter(buffer: buffer, type: view.messageType, transactionID: view.transactionID)
            var offset = STUNMessageView.headerSize
            var seenIntegrity = false
            for attribute in view.attributes {
                let valueEnd = offset + 4 + attribute.value.count
                offset += 4 + STUNMessageView.padded(attribute.value.count)
                let padding = valueEnd < offset ? bytes[valueEnd] : 0
                for i in valueEnd..<offset where bytes[i] != padding { uniformPadding = false }

                if attribute.type == .messageIntegrity, !seenIntegrity {
                    seenIntegrity = true
                    if attribute.value.count == 20 {
                        try fuzzKey.withUnsafeBytes { key in
                            try writer.appendMessageIntegrity(key: key)
                        }
                        signedIntegrity = true
                        continue
                    }
                }
                if attribute.type == .fingerprint, offset == bytes.count, attribute.value.count == 4 {
                    try writer.appendFingerprint()
                    signedFingerprint = true
                    continue
                }
                try writer.append(type: attribute.type, value: attribute.value, padding: padding)
            }
            return writer.finish()
        } catch {
            fatalError("rebuilding a parsed message into a buffer of its size failed: \(error)")
        }
    }
    guard written == bytes.count else { fatalError("rebuilt \(written) bytes from \(bytes.count)") }

    let expectIdentical = uniformPadding && (!signedIntegrity || integrityOK) && (!signedFingerprint || fingerprintOK)
    if expectIdentical, !out.elementsEqual(bytes) {
        fatalError("rebuilt message differs from the input")
    }

    out.withUnsafeBytes { raw in
        guard let again = try? STUNMessageView(validating: raw) else { fatalError("rebuilt message does not parse") }
        guard again.messageType == view.messageType, again.transactionID == view.transactionID else {
            fatalError("header changed")
        }
        var a = view.attributes.makeIterator()
        var b = again.attributes.makeIterator()
        while true {
            let x = a.next()
            let y = b.next()
            guard let x, let y else {
                if x != nil || y != nil { fatalError("attribute count changed") }
                break
            }
            guard x.type == y.type else { fatalError("attribute type changed") }
            let resigned = x.type == .messageIntegrity || x.type == .fingerprint
            if !resigned, !x.value.elementsEqual(y.value) { fatalError("attribute value changed") }
            if x.value.count != y.value.count { fatalError("attribute length changed") }
        }
        if !sameTypedFields(view, again) { fatalError("typed fields changed") }
        if signedIntegrity, (fuzzKey.withUnsafeBytes { (try? again.verifyMessageIntegrity(key: $0)) == nil }) {
            fatalError("re-signed MESSAGE-INTEGRITY does not verify")
        }
        if signedFingerprint, (try? again.verifyFingerprint()) == nil {
            fatalError("re-signed FINGERPRINT does not verify")
        }
    }
}

/// Step 2: the typed fields of `view` through the typed appenders.
private func rebuildTypedFields(_ view: STUNMessageView) {
    var out = [UInt8](repeating: 0, count: view.bytes.count + 256)
    out.withUnsafeMutableBytes { buffer in
        do {
            var w = try STUNMessageWriter(buffer: buffer, type: view.messageType, transactionID: view.transactionID)
            if let username = view.username, username.count <= 513 { try w.appendUsername(username) }
            if let priority = view.priority { try w.appendPriority(priority) }
            if view.useCandidate { try w.appendUseCandidate() }
            if let tieBreaker = view.iceControlling { try w.appendICEControlling(tieBreaker) }
            if let tieBreaker = view.iceControlled { try w.appendICEControlled(tieBreaker) }
            if let address = view.xorMappedAddress { try w.appendXORMappedAddress(address) }
            if let address = view.mappedAddress { try w.appendMappedAddress(address) }
            if let error = view.errorCode, error.reason.count <= 763 {
                try w.appendErrorCode(code: error.code, reason: error.reason)
            }
            try fuzzKey.withUnsafeBytes { key in try w.appendMessageIntegrity(key: key) }
            try w.appendFingerprint()
            let again = try STUNMessageView(validating: UnsafeRawBufferPointer(rebasing: buffer[0..<w.finish()]))
            if view.username?.count ?? 0 <= 513, view.errorCode?.reason.count ?? 0 <= 763, !sameTypedFields(view, again) {
                fatalError("typed fields did not round-trip")
            }
            try fuzzKey.withUnsafeBytes { key in try again.verifyMessageIntegrity(key: key) }
            try again.verifyFingerprint()
        } catch {
            fatalError("typed rebuild failed: \(error)")
        }
    }
}

private func sameBytes(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let a?, let b?): a.elementsEqual(b)
    default: false
    }
}

private func sameTypedFields(_ a: STUNMessageView, _ b: STUNMessageView) -> Bool {
    sameBytes(a.username, b.username) && a.priority == b.priority && a.useCandidate == b.useCandidate
        && a.iceControlling == b.iceControlling && a.iceControlled == b.iceControlled
        && a.xorMappedAddress == b.xorMappedAddress && a.mappedAddress == b.mappedAddress
        && a.errorCode?.code == b.errorCode?.code && sameBytes(a.errorCode?.reason, b.errorCode?.reason)
}
