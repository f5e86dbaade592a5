import CVPX

/// A libvpx VP8 decoder for one received video track. Not thread-safe: one
/// owner calls it.
public final class VP8Decoder {
    /// Frames that decoded to a picture.
    public private(set) var framesDecoded: Int = 0

    // libvpx keeps a pointer to the context: it lives on the heap.
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>

    public init() throws(CodecError) {
        // Set up through a local and stored last: a class initializer that
        // throws after its properties are set runs deinit (a double free).
        let context = UnsafeMutablePointer<vpx_codec_ctx_t>.allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let status = vroom_vpx_codec_dec_init(context, vpx_codec_vp8_dx(), nil, 0)
        guard status == VPX_CODEC_OK else {
            let error = CodecError.vpx(status, context: context)
            context.deallocate()
            throw error
        }
        self.context = context
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one complete VP8 frame (the depacketized RTP payloads) and
    /// returns its picture with the planes copied out tightly packed, or nil
    /// when the frame produced no picture (e.g. a frame marked not to show).
    /// Throws for data libvpx rejects and for a picture it flags corrupt
    /// (which lasts until the next keyframe when a reference was damaged);
    /// never crashes on bad input.
    public func decode(_ data: [UInt8]) throws(CodecError) -> VideoFrame? {
        // An empty buffer would mean "flush" to libvpx: not a frame.
        guard !data.isEmpty else { throw .invalidArgument("empty VP8 frame") }
        guard data.count <= Int(UInt32.max) else { throw .invalidArgument("VP8 frame too large") }
        let context = self.context
        let status = data.withUnsafeBufferPointer {
            vpx_codec_decode(context, $0.baseAddress, UInt32($0.count), nil, 0)
        }
        guard status == VPX_CODEC_OK else { throw CodecError.vpx(status, context: context) }

        var corrupted: Int32 = 0
        if vroom_vpx_codec_control_int_ptr(context, Int32(VP8D_GET_FRAME_CORRUPTED.rawValue), &corrupted) == VPX_CODEC_OK,
           corrupted != 0 {
            // Drain the picture so the next call starts clean.
            var iterator: vpx_codec_iter_t?
            while vpx_codec_get_frame(context, &iterator) != nil {}
            throw .corruptFrame
        }

        var picture: VideoFrame?
        var iterator: vpx_codec_iter_t?
        while let image = vpx_codec_get_frame(context, &iterator) {
            guard picture == nil else { continue }
            picture = Self.copy(image.pointee)
        }
        if picture != nil { framesDecoded += 1 }
        return picture
    }

    /// The image's visible area as tightly packed I420 planes.
    private static func copy(_ image: vpx_image_t) -> VideoFrame? {
        guard image.fmt == VPX_IMG_FMT_I420,
              let yPlane = image.planes.0, let uPlane = image.planes.1, let vPlane = image.planes.2 else { return nil }
        let width = Int(image.d_w)
        let height = Int(image.d_h)
        let chromaWidth = VideoFrame.chromaWidth(width)
        let chromaHeight = VideoFrame.chromaHeight(height)
        return VideoFrame(
            width: width, height: height,
            y: packed(yPlane, stride: Int(image.stride.0), width: width, height: height),
            u: packed(uPlane, stride: Int(image.stride.1), width: chromaWidth, height: chromaHeight),
            v: packed(vPlane, stride: Int(image.stride.2), width: chromaWidth, height: chromaHeight))
    }

    /// Copies `height` rows of `width` bytes from a plane whose rows are
    /// `stride` bytes apart; the plane belongs to libvpx until the next
    /// decode call, so it is copied now.
    private static func packed(_ plane: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) -> [UInt8] {
        guard width > 0, height > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            for row in 0..<height {
                (buffer.baseAddress! + row * width).update(from: plane + row * stride, count: width)
            }
            count = width * height
        }
    }
}
