import COpus
import CVPX

/// Why a codec call failed, with the library's own code and message.
public enum CodecError: Error, Sendable, Equatable {
    /// libvpx returned `code` (a `vpx_codec_err_t`); `message` is its text
    /// plus the codec's detail when it gave one.
    case vpx(code: Int, message: String)
    /// libopus returned `code` (an `OPUS_*` error, negative); `message` is
    /// `opus_strerror(code)`.
    case opus(code: Int, message: String)
    /// The decoder took the data but flagged the picture as corrupt (bad
    /// data, or a reference frame lost before it): the caller should ask for
    /// a keyframe and drop frames until one arrives.
    case corruptFrame
    /// The caller passed something the codec cannot take (wrong plane or
    /// sample counts, empty data, unsupported size or channel count).
    case invalidArgument(String)

    /// The error for a failed libvpx call on `context` (which may be nil when
    /// the context never came to life).
    static func vpx(_ status: vpx_codec_err_t, context: UnsafeMutablePointer<vpx_codec_ctx_t>?) -> CodecError {
        var message = String(cString: vpx_codec_err_to_string(status))
        if let context, let detail = vpx_codec_error_detail(context) {
            message += ": " + String(cString: detail)
        }
        return .vpx(code: Int(status.rawValue), message: message)
    }

    /// The error for a negative libopus return value.
    static func opus(_ code: Int32) -> CodecError {
        .opus(code: Int(code), message: String(cString: opus_strerror(code)))
    }
}
