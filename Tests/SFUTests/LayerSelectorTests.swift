import Packets
import Testing
@testable import SFU

/// The layer decision on its own, on a virtual clock (STYLE.md habit 6).
@Suite struct LayerSelectorTests {
    /// q 320x180, h 640x360, f 1280x720; `live` says which are live.
    func layers(live: Set<Int> = [0, 1, 2]) -> (Int) -> LayerSelector.Layer {
        let sizes = [(320, 180), (640, 360), (1280, 720)]
        return { LayerSelector.Layer(width: sizes[$0].0, height: sizes[$0].1, isLive: live.contains($0)) }
    }

    @Test func theSmallestLayerCoveringTheRenderSizeLongSideAgainstLongSide() {
        var selector = LayerSelector(layerCount: 3)
        #expect(selector.idealLayer(layers()) == 2)  // no render size: the highest
        selector.renderSize = (320, 180)
        #expect(selector.idealLayer(layers()) == 0)
        selector.renderSize = (321, 180)
        #expect(selector.idealLayer(layers()) == 1)
        selector.renderSize = (640, 360)
        #expect(selector.idealLayer(layers()) == 1)
        // Portrait tile: 360 wide, 640 high, is covered by 640x360.
        selector.renderSize = (360, 640)
        #expect(selector.idealLayer(layers()) == 1)
        selector.renderSize = (1920, 1080)
        #expect(selector.idealLayer(layers()) == 2)  // none covers: the highest
        selector.renderSize = (100, 100)
        #expect(selector.idealLayer(layers()) == 0)
    }

    @Test func targetsTheIdealLayerAndSwitchesWhenItsKeyframeArrives() {
        var selector = LayerSelector(layerCount: 3)
        let now = MediaTime.milliseconds(1000)
        selector.renderSize = (640, 360)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 1 && selector.current == nil && selector.isSwitching)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(!result)  // nothing new
        }
        selector.switched(to: 1)
        #expect(!selector.isSwitching && selector.waitingSince == nil)
    }

    @Test func aLayerThatIsNotLiveIsSkippedAndTheCurrentOneLeftWhenItStops() {
        var selector = LayerSelector(layerCount: 3)
        var now = MediaTime.milliseconds(1000)
        // Nothing started, no render size: 2 is not live, 1 is the best live one.
        do {
            let result = selector.update(now: now, layer: layers(live: [0, 1]))
            #expect(result)
        }
        #expect(selector.target == 1)
        selector.switched(to: 1)
        // Layer 2 comes back: the target goes up.
        now = now.adding(milliseconds: 100)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 2)
        selector.switched(to: 2)
        // Layer 2 stops: back to the best live one.
        do {
            let result = selector.update(now: now, layer: layers(live: [0, 1]))
            #expect(result)
        }
        #expect(selector.target == 1 && selector.current == 2)
        // Nothing live at all: stay where it is.
        selector.switched(to: 1)
        do {
            let result = selector.update(now: now, layer: layers(live: []))
            #expect(!result)
        }
        #expect(selector.target == 1)
    }

    @Test func aKeyframeThatNeverComesIsGivenUpAndRetriedAfterABackOff() {
        var selector = LayerSelector(layerCount: 3)
        var now = MediaTime.milliseconds(1000)
        selector.renderSize = (320, 180)
        _ = selector.update(now: now, layer: layers())
        selector.switched(to: 0)
        selector.renderSize = nil
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 2)
        // 1.9 s: still waiting.
        now = now.adding(milliseconds: 1900)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(!result)
        }
        #expect(selector.target == 2)
        // 2 s: given up; the next live layer below (1) is tried.
        now = now.adding(milliseconds: 100)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 1)
        // Its keyframe does not come either: back to the current layer.
        now = now.adding(milliseconds: 2000)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 0 && !selector.isSwitching)
        // Layer 2's back-off (4 s from its timeout) ends first.
        now = now.adding(milliseconds: 1999)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(!result)
        }
        now = now.adding(milliseconds: 1)
        do {
            let result = selector.update(now: now, layer: layers())
            #expect(result)
        }
        #expect(selector.target == 2)
        // Timed out again: the back-off doubles (8 s).
        now = now.adding(milliseconds: 2000)
        _ = selector.update(now: now, layer: layers())
        #expect(selector.target != 2)
        selector.switched(to: selector.target)
        now = now.adding(milliseconds: 7999)
        _ = selector.update(now: now, layer: layers())
        #expect(selector.target != 2)
        now = now.adding(milliseconds: 1)
        _ = selector.update(now: now, layer: layers())
        #expect(selector.target == 2)
        // Success resets it.
        selector.switched(to: 2)
        #expect(!selector.isSwitching)
    }
}
