import MediaIO

// The media plane's value types that the layers asking Node (Signaling,
// AdminAPI) read but may not import (DESIGN.md: they never import MediaIO
// or the SFU). One type each, MediaIO's, under a name of Node's.

/// The media workers' counters (for `/metrics`).
public typealias MediaCounters = MediaStatistics

/// How many participants are at each network quality level (for `/metrics`).
public typealias QualityCensus = NetworkQualityCensus

/// A participant's network quality as last rated (for `/Stats`).
public typealias QualityFigures = ParticipantQuality
