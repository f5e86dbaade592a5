/// One encoding a `LocalVideoTrack` sends: a simulcast layer (its RID,
/// size and bitrate), or the whole track when it has one layer (no RID).
struct VideoLayer: Sendable, Hashable {
    var rid: String?
    var width: Int
    var height: Int
    /// Target bit/s of its encoder.
    var bitrate: Int

    /// RIDs of the three simulcast layers, lowest first, and their scale
    /// down from the camera: 1/4, 1/2, 1 (as Chromium's and Twilio's
    /// `scaleResolutionDownBy` 4, 2, 1).
    static let simulcastRIDs = ["q", "h", "f"]
    static let simulcastDownscales = [4, 2, 1]

    /// The layers of a camera: three for VP8 simulcast, else one at the
    /// camera's size and bitrate.
    static func layers(for camera: CameraSourceOptions, simulcast: Bool) -> [VideoLayer] {
        guard simulcast else {
            return [VideoLayer(rid: nil, width: camera.width, height: camera.height, bitrate: camera.bitrate)]
        }
        return zip(simulcastRIDs, simulcastDownscales).map { rid, scale in
            // libvpx wants even sizes for 4:2:0 to keep the chroma planes whole.
            let width = max(2, camera.width / scale & ~1)
            let height = max(2, camera.height / scale & ~1)
            return VideoLayer(rid: rid, width: width, height: height, bitrate: defaultBitrate(width: width, height: height))
        }
    }

    /// Twilio's VP8 simulcast bitrates: twilio-video.js sets only
    /// `scaleResolutionDownBy` on its simulcast encodings and leaves each
    /// layer's bitrate to libwebrtc's defaults (`kSimulcastFormats` in
    /// libwebrtc's video/config/simulcast.cc, the table Chrome uses and
    /// simulcast_unittest.cc checks): by layer size, target kbit/s
    /// 1920x1080 4000, 1280x720 2500, 960x540 1200, 640x360 500,
    /// 480x270 350, 320x180 and below 150. So a 720p camera sends
    /// 150 + 500 + 2500 kbit/s (320x180, 640x360, 1280x720). A layer takes
    /// the row of the largest size not above its pixel count (libwebrtc
    /// interpolates between rows; the steps are close enough for a test
    /// camera).
    static func defaultBitrate(width: Int, height: Int) -> Int {
        let rows: [(pixels: Int, kbps: Int)] = [
            (1920 * 1080, 4000), (1280 * 720, 2500), (960 * 540, 1200), (640 * 360, 500), (480 * 270, 350),
        ]
        let pixels = width * height
        return (rows.first { pixels >= $0.pixels }?.kbps ?? 150) * 1000
    }
}
