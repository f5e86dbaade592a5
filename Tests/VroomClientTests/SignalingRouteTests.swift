import Testing

@testable import VroomClient

/// Where the SDK's signaling socket goes (PROTOCOL.md 3.6 and 8): redirects
/// counted per join, resumes tried across the known URLs, a `reconnect`
/// sending the next resume to the new node.
@Suite struct SignalingRouteTests {
    static let balancer = "ws://lb.example/v1/signal"
    static func node(_ n: Int) -> String { "ws://10.0.0.\(n):7880/v1/signal" }

    @Test func aJoinFollowsThreeRedirectsAndRefusesTheFourth() {
        var route = SignalingRoute(origin: Self.balancer)
        #expect(route.current == Self.balancer)
        for n in 1...3 {
            #expect(route.redirect(to: Self.node(n)) == .follow(Self.node(n)))
            #expect(route.current == Self.node(n) && route.redirects == n)
        }
        guard case .refuse(let error) = route.redirect(to: Self.node(4)) else {
            Issue.record("a fourth redirect was followed")
            return
        }
        #expect(error.code == 53000)
        #expect(error.message.contains("more than 3") && error.message.contains(Self.node(4)), "\(error.message)")
        #expect(route.current == Self.node(3), "a refused redirect goes nowhere")
        #expect(route.home == nil)
    }

    @Test func joinedResetsTheCountAndIsHome() {
        var route = SignalingRoute(origin: Self.balancer)
        _ = route.redirect(to: Self.node(1))
        _ = route.redirect(to: Self.node(2))
        route.joined()
        #expect(route.home == Self.node(2) && route.redirects == 0)
        // Three more for the next join (here a resume's).
        _ = route.nextResumeURL()
        for n in 3...5 { #expect(route.redirect(to: Self.node(n)) == .follow(Self.node(n))) }
    }

    @Test func aResumeTriesHomeThenTheConnectURLThenTheFallbacksInTurn() {
        var route = SignalingRoute(origin: Self.balancer, fallbacks: [Self.node(7), Self.balancer, Self.node(8)])
        _ = route.redirect(to: Self.node(1))
        route.joined()
        #expect(route.resumeURLs == [Self.node(1), Self.balancer, Self.node(7), Self.node(8)], "each URL once")
        let tried = (0..<5).map { _ in route.nextResumeURL() }
        #expect(tried == [Self.node(1), Self.balancer, Self.node(7), Self.node(8), Self.node(1)])
        #expect(route.current == Self.node(1))
        // Joined again: the next drop starts over at home.
        route.joined()
        #expect(route.nextResumeURL() == Self.node(1))
    }

    @Test func aDirectConnectWithoutFallbacksResumesWhereItJoined() {
        var route = SignalingRoute(origin: Self.node(1))
        route.joined()
        #expect(route.resumeURLs == [Self.node(1)])
        #expect(route.nextResumeURL() == Self.node(1) && route.nextResumeURL() == Self.node(1))
    }

    @Test func aReconnectSendsTheNextResumeToTheNewNodeAndForgetsTheOld() {
        var route = SignalingRoute(origin: Self.balancer, fallbacks: [Self.node(7)])
        _ = route.redirect(to: Self.node(1))
        route.joined()
        _ = route.nextResumeURL()  // a resume attempt or two before the move
        _ = route.nextResumeURL()
        route.move(to: Self.node(2))
        #expect(route.home == Self.node(2))
        #expect(route.resumeURLs == [Self.node(2), Self.balancer, Self.node(7)], "the draining node is not tried")
        #expect(route.nextResumeURL() == Self.node(2))
        route.joined()
        #expect(route.home == Self.node(2))
    }

    @Test func eachResumeAttemptMayFollowItsOwnRedirects() {
        var route = SignalingRoute(origin: Self.balancer)
        route.joined()
        _ = route.nextResumeURL()
        for n in 1...3 { _ = route.redirect(to: Self.node(n)) }
        #expect(route.redirect(to: Self.node(4)) != .follow(Self.node(4)))
        #expect(route.nextResumeURL() == Self.balancer && route.redirects == 0)
        #expect(route.redirect(to: Self.node(4)) == .follow(Self.node(4)))
    }
}
