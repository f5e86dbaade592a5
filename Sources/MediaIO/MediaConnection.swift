import SFU
import WebRTC

/// One PeerConnection as its media worker holds it: the sans-I/O transport
/// (ICE-lite, DTLS, SRTP) plus who it belongs to.
package final class MediaConnection {
    let id: TransportID
    let participant: ParticipantHandle
    let room: RoomHandle
    let role: MediaEvent.Connection
    let transport: PeerTransport
    /// `connected` was reported to the control plane.
    var reportedConnected = false
    /// `failed` was reported: the connection stays until the control plane
    /// removes it, but nothing more is reported.
    var reportedFailure = false

    package init(id: TransportID, participant: ParticipantHandle, room: RoomHandle, role: MediaEvent.Connection, transport: PeerTransport) {
        self.id = id
        self.participant = participant
        self.room = room
        self.role = role
        self.transport = transport
    }
}
