import Testing
@testable import SFU
