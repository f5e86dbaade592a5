import CVPX

/// A libvpx VP8 encoder for one video track. Not thread-safe: one owner
/// calls it (an actor or a single task).
public final class VP8Encoder {
    /// The configuration the encoder was created with (bitrate as last set).
    public private(set) var configuration: VP8EncoderConfiguration
    /// Frames handed to `encode`, including dropped ones: the next pts.
    public private(set) var framesEncoded: Int = 0

    // libvpx keeps pointers to both the context and, from `enc_init`, the
    // configuration: neither may move, so both live on the heap until deinit.
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let codecConfig: UnsafeMutablePointer<vpx_codec_enc_cfg_t>

    /// Creates the encoder; throws when libvpx rejects the configuration
    /// (e.g. an odd-looking size or a zero frame rate).
    public init(_ configuration: VP8EncoderConfiguration) throws(CodecError) {
        guard configuration.width > 0, configuration.height > 0,
              configuration.width <= 16383, configuration.height <= 16383 else {
            throw .invalidArgument("VP8 picture size \(configuration.width)x\(configuration.height)")
        }
        guard configuration.frameRate > 0, configuration.bitrate > 0, configuration.keyframeInterval > 0 else {
            throw .invalidArgument("frame rate, bitrate and keyframe interval must be positive")
        }
        // Everything is set up through locals and stored last: a class
        // initializer that throws after its properties are set runs deinit,
        // which would free the context a second time.
        let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let cfg = UnsafeMutablePointer<vpx_codec_enc_cfg_t>.allocate(capacity: 1)
        cfg.initialize(to: vpx_codec_enc_cfg_t())

        var status = vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0)
        guard status == VPX_CODEC_OK else {
            Self.release(context, cfg, initialized: false)
            throw CodecError.vpx(status, context: nil)
        }
        cfg.pointee.g_w = UInt32(configuration.width)
        cfg.pointee.g_h = UInt32(configuration.height)
        cfg.pointee.g_timebase = vpx_rational(num: 1, den: Int32(clamping: configuration.frameRate))
        cfg.pointee.g_threads = UInt32(clamping: max(1, configuration.threads))
        cfg.pointee.g_lag_in_frames = 0  // real time: every input frame comes out at once
        cfg.pointee.g_pass = VPX_RC_ONE_PASS
        cfg.pointee.g_error_resilient = configuration.errorResilient
            ? vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT) : 0
        cfg.pointee.rc_end_usage = VPX_CBR
        cfg.pointee.rc_target_bitrate = Self.kilobits(configuration.bitrate)
        cfg.pointee.rc_dropframe_thresh = UInt32(clamping: max(0, configuration.frameDropThreshold))
        cfg.pointee.rc_resize_allowed = 0
        // WebRTC's libvpx wrapper values: quantizer 2...56, a 1 s buffer
        // starting half full, 100% undershoot and 15% overshoot allowed.
        cfg.pointee.rc_min_quantizer = 2
        cfg.pointee.rc_max_quantizer = 56
        cfg.pointee.rc_undershoot_pct = 100
        cfg.pointee.rc_overshoot_pct = 15
        cfg.pointee.rc_buf_sz = 1000
        cfg.pointee.rc_buf_initial_sz = 500
        cfg.pointee.rc_buf_optimal_sz = 600
        cfg.pointee.kf_mode = VPX_KF_AUTO
        cfg.pointee.kf_min_dist = 0
        cfg.pointee.kf_max_dist = UInt32(clamping: configuration.keyframeInterval)

        status = vroom_vpx_codec_enc_init(context, vpx_codec_vp8_cx(), cfg, 0)
        guard status == VPX_CODEC_OK else {
            let error = CodecError.vpx(status, context: context)
            Self.release(context, cfg, initialized: false)
            throw error
        }
        let controls: [(vp8e_enc_control_id, Int32)] = [
            (VP8E_SET_CPUUSED, Int32(clamping: configuration.cpuUsed)),
            (VP8E_SET_NOISE_SENSITIVITY, 0),
            (VP8E_SET_STATIC_THRESHOLD, 1),
            (VP8E_SET_TOKEN_PARTITIONS, Int32(VP8_ONE_TOKENPARTITION.rawValue)),
        ]
        for (control, value) in controls {
            status = vroom_vpx_codec_control_int(context, Int32(control.rawValue), value)
            guard status == VPX_CODEC_OK else {
                let error = CodecError.vpx(status, context: context)
                Self.release(context, cfg, initialized: true)
                throw error
            }
        }
        self.configuration = configuration
        self.context = context
        self.codecConfig = cfg
    }

    deinit {
        Self.release(context, codecConfig, initialized: true)
    }

    /// Encodes one picture. Returns nil when libvpx dropped the frame (only
    /// with a `frameDropThreshold` above 0). The first frame is always a
    /// keyframe; `forceKeyframe` makes this one a keyframe too (answering a
    /// PLI or FIR). Throws when the frame's size or planes do not match.
    public func encode(_ frame: VideoFrame, forceKeyframe: Bool = false) throws(CodecError) -> EncodedVideoFrame? {
        guard frame.width == configuration.width, frame.height == configuration.height else {
            throw .invalidArgument(
                "frame \(frame.width)x\(frame.height) for an encoder of \(configuration.width)x\(configuration.height)")
        }
        guard frame.hasValidPlanes else { throw .invalidArgument("I420 plane sizes do not match the frame size") }

        let pts = vpx_codec_pts_t(framesEncoded)
        framesEncoded += 1
        let flags: vpx_enc_frame_flags_t = forceKeyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        let context = self.context
        let chromaStride = Int32(frame.chromaWidth)
        // vpx_codec_encode copies the planes into its look-ahead buffer before
        // it returns (lag 0), so pointers valid for this call are enough.
        let status = frame.y.withUnsafeBufferPointer { y in
            frame.u.withUnsafeBufferPointer { u in
                frame.v.withUnsafeBufferPointer { v in
                    var image = vpx_image_t()
                    vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(frame.width), UInt32(frame.height), 1,
                                 UnsafeMutablePointer(mutating: y.baseAddress))
                    image.planes.1 = UnsafeMutablePointer(mutating: u.baseAddress)
                    image.planes.2 = UnsafeMutablePointer(mutating: v.baseAddress)
                    image.stride.0 = Int32(frame.width)
                    image.stride.1 = chromaStride
                    image.stride.2 = chromaStride
                    return vpx_codec_encode(context, &image, pts, 1, flags, UInt(VPX_DL_REALTIME))
                }
            }
        }
        guard status == VPX_CODEC_OK else { throw CodecError.vpx(status, context: context) }

        var result: EncodedVideoFrame?
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT, result == nil else { continue }
            let compressed = packet.pointee.data.frame
            result = EncodedVideoFrame(
                data: [UInt8](UnsafeRawBufferPointer(start: compressed.buf, count: compressed.sz)),
                isKeyframe: compressed.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0)
        }
        return result
    }

    /// Changes the target bitrate (bit/s) from the next frame on, as a
    /// congestion controller or REMB asks. Values below 1 kbit/s become 1.
    public func setBitrate(_ bitsPerSecond: Int) {
        configuration.bitrate = bitsPerSecond
        codecConfig.pointee.rc_target_bitrate = Self.kilobits(bitsPerSecond)
        // Fails only for a configuration libvpx already accepted at init
        // with another bitrate: nothing useful to report.
        _ = vpx_codec_enc_config_set(context, codecConfig)
    }

    private static func kilobits(_ bitsPerSecond: Int) -> UInt32 {
        UInt32(clamping: max(1, (bitsPerSecond + 500) / 1000))
    }

    private static func release(_ context: UnsafeMutablePointer<vpx_codec_ctx_t>,
                                _ config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>, initialized: Bool) {
        if initialized { vpx_codec_destroy(context) }
        context.deallocate()
        config.deallocate()
    }
}
