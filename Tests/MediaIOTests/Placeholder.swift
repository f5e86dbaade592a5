import Testing
@testable import MediaIO
