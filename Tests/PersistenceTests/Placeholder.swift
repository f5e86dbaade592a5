// Placeholder until the persistence tests land: SwiftPM needs a source file per test target.
