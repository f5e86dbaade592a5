// Signaling: the WebSocket JSON codec and one session actor per participant.
// Filled by the control-plane issue.
