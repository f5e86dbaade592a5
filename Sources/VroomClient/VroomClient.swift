// VroomClient: the Swift client SDK (Room, LocalParticipant, RemoteParticipant).
// Filled by the client SDK issue.
