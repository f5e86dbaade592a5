import Codecs

/// The one seeded generator, kept in Codecs so that the load tester can use
/// it too; tests keep reaching it through VroomTesting.
public typealias SeededGenerator = Codecs.SeededGenerator
