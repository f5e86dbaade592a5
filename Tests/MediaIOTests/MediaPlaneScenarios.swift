import Testing
import Node

/// The media-plane scenarios run one at a time: each starts a worker thread
/// and pumps real UDP, and on 2 shared cores running them side by side only
/// tests the scheduler.
@Suite(.serialized) enum MediaPlaneScenarios {}
