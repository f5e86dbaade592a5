import COpenSSL
import COpus
import CSRTP
import CVPX
import Foundation
import LibSRTPReference
import Testing

// Each system-library target compiles, links and does real work.

@Test func libsrtpInitialisesAndRoundTripsAPacket() throws {
    // The process's one srtp_init (tests of other targets share the process).
    #expect(LibSRTPSession.libraryStatus == srtp_err_status_ok.rawValue)

    // One RTP packet protected and unprotected with the same AES-GCM key.
    var policy = srtp_policy_t()
    srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
    srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
    var key = [UInt8](repeating: 0, count: 28)  // 16-byte key + 12-byte salt
    for i in key.indices { key[i] = UInt8(i) }
    policy.ssrc.type = ssrc_any_outbound
    var sender: srtp_t?
    var receiver: srtp_t?
    try key.withUnsafeMutableBufferPointer { keyBytes in
        policy.key = keyBytes.baseAddress
        try #require(srtp_create(&sender, &policy) == srtp_err_status_ok)
        policy.ssrc.type = ssrc_any_inbound
        try #require(srtp_create(&receiver, &policy) == srtp_err_status_ok)
    }
    defer {
        srtp_dealloc(sender)
        srtp_dealloc(receiver)
    }
    // 12-byte RTP header + 20 bytes payload, with room for the GCM tag.
    var packet: [UInt8] = [0x80, 96, 0x00, 0x01, 0, 0, 0, 1, 0xDE, 0xAD, 0xBE, 0xEF]
        + [UInt8](repeating: 0xAB, count: 20)
    let plain = packet
    packet += [UInt8](repeating: 0, count: Int(vroom_srtp_max_trailer_len))
    var length: Int32 = Int32(plain.count)
    #expect(srtp_protect(sender, &packet, &length) == srtp_err_status_ok)
    #expect(Int(length) == plain.count + 16)
    #expect(Array(packet[12..<plain.count]) != Array(plain[12...]))
    #expect(srtp_unprotect(receiver, &packet, &length) == srtp_err_status_ok)
    #expect(Array(packet[..<Int(length)]) == plain)
}

@Test func openSSLIsVersion3AndComputesHMACSHA1() {
    #expect(OpenSSL_version_num() >= 0x3000_0000)
    #expect(String(cString: vroom_openssl_version_text()).hasPrefix("OpenSSL 3"))

    // RFC 2202 test case 2: key "Jefe", data "what do ya want for nothing?".
    let key = Array("Jefe".utf8)
    let data = Array("what do ya want for nothing?".utf8)
    var mac = [UInt8](repeating: 0, count: 20)
    #expect(vroom_hmac_sha1(key, key.count, data, data.count, &mac) == 1)
    let hex = mac.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    #expect(hex == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
}

@Test func libvpxEncodesAndDecodesOneVP8Frame() throws {
    let width: UInt32 = 320
    let height: UInt32 = 240
    var config = vpx_codec_enc_cfg_t()
    #expect(vpx_codec_enc_config_default(vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
    config.g_w = width
    config.g_h = height
    config.rc_target_bitrate = 500
    config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)

    // The codec context must not move between calls: keep it on the heap.
    let encoder = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    defer { encoder.deallocate() }
    try #require(vroom_vpx_codec_enc_init(encoder, vpx_codec_vp8_cx(), &config, 0) == VPX_CODEC_OK)
    defer { vpx_codec_destroy(encoder) }

    let image = try #require(vpx_img_alloc(nil, VPX_IMG_FMT_I420, width, height, 1))
    defer { vpx_img_free(image) }
    // A gradient on the luma plane, mid-grey chroma.
    for y in 0..<Int(height) {
        let row = image.pointee.planes.0! + y * Int(image.pointee.stride.0)
        for x in 0..<Int(width) { row[x] = UInt8(truncatingIfNeeded: x + y) }
    }
    for plane in [image.pointee.planes.1!, image.pointee.planes.2!] {
        plane.update(repeating: 128, count: Int(image.pointee.stride.1) * Int(height / 2))
    }
    #expect(vpx_codec_encode(encoder, image, 0, 1, 0, UInt(VPX_DL_REALTIME)) == VPX_CODEC_OK)

    var iterator: vpx_codec_iter_t?
    var frame: [UInt8] = []
    var keyframe = false
    while let packet = vpx_codec_get_cx_data(encoder, &iterator) {
        guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
        let f = packet.pointee.data.frame
        frame += UnsafeRawBufferPointer(start: f.buf, count: f.sz)
        keyframe = f.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0
    }
    #expect(!frame.isEmpty)
    #expect(keyframe)
    // RFC 6386 section 9.1: a keyframe starts with the start code 9d 01 2a.
    #expect(frame.count > 6 && Array(frame[3..<6]) == [0x9D, 0x01, 0x2A])

    let decoder = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
    defer { decoder.deallocate() }
    try #require(vroom_vpx_codec_dec_init(decoder, vpx_codec_vp8_dx(), nil, 0) == VPX_CODEC_OK)
    defer { vpx_codec_destroy(decoder) }
    #expect(vpx_codec_decode(decoder, frame, UInt32(frame.count), nil, 0) == VPX_CODEC_OK)
    var decodeIterator: vpx_codec_iter_t?
    let decoded = try #require(vpx_codec_get_frame(decoder, &decodeIterator))
    #expect(decoded.pointee.d_w == width)
    #expect(decoded.pointee.d_h == height)
}

@Test func libopusRoundTripsTwentyMilliseconds() throws {
    let sampleRate: Int32 = 48_000
    let channels: Int32 = 2
    let frameSize = 960  // 20 ms at 48 kHz
    var error: Int32 = 0
    let encoder = try #require(opus_encoder_create(sampleRate, channels, OPUS_APPLICATION_VOIP, &error))
    defer { opus_encoder_destroy(encoder) }
    #expect(error == OPUS_OK)
    #expect(vroom_opus_set_bitrate(encoder, 64_000) == OPUS_OK)
    #expect(vroom_opus_set_inband_fec(encoder, 1) == OPUS_OK)
    let decoder = try #require(opus_decoder_create(sampleRate, channels, &error))
    defer { opus_decoder_destroy(decoder) }

    // A 440 Hz tone, interleaved stereo.
    var pcm = [Int16](repeating: 0, count: frameSize * Int(channels))
    for i in 0..<frameSize {
        let sample = Int16(8000 * sin(2 * Double.pi * 440 * Double(i) / Double(sampleRate)))
        pcm[2 * i] = sample
        pcm[2 * i + 1] = sample
    }
    var packet = [UInt8](repeating: 0, count: 1500)
    let encodedBytes = opus_encode(encoder, pcm, Int32(frameSize), &packet, Int32(packet.count))
    #expect(encodedBytes > 0)
    // TOC byte (RFC 6716 section 3.1): config 0-31, a 20 ms frame.
    #expect(opus_packet_get_samples_per_frame(packet, sampleRate) == Int32(frameSize))

    var out = [Int16](repeating: 0, count: frameSize * Int(channels))
    let decodedSamples = opus_decode(decoder, packet, encodedBytes, &out, Int32(frameSize), 0)
    #expect(decodedSamples == Int32(frameSize))
    #expect(out.contains { $0 != 0 })
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
