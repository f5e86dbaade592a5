#!/usr/bin/env python3
"""Interop scenarios against a real `vroom-server` on loopback (issue 4, part 4).

  interop_test.py [--server PATH] [--impair PATH] [--chromium BIN] [scenario ...]

Scenarios (default: all but the simulcast ones):
  self    the tooling alone, no server: aiortc to aiortc through vroom-impair
          (5% loss, 50 +/- 10 ms both ways), with the checks below
  shape   the htb bottleneck alone, no server (scripts/shape.sh, shaping.py):
          2 Mbit/s into a UDP port shaped to 500 kbit/s arrives at 500
          kbit/s +/- 20%, then 1000 kbit/s after a mid-test change; skipped
          outside a loopback-only network namespace
  a2, a3  two / three aiortc participants: each receives the others' tracks,
          decodes 320x240 frames with increasing frame numbers, hears each
          publisher's tone
  b       track disable stops forwarding, enable resumes within 5 s;
          unpublish removes the track from the next subscribeOffer
  c       through vroom-impair (5% loss, 50 +/- 10 ms jitter both ways):
          >= 95% of the frame numbers sent are decoded, the server's
          retransmission counter is above 0
  d       headless Chromium on the demo page + one aiortc participant,
          media both ways (getStats in Chrome, decoding in aiortc)
  nq-loss three audio participants, one through vroom-impair at 10% loss
          both ways from 4 s to 24 s: everyone is told `high-packet-loss` for that
          one only, its level drops and recovers, the warning clears
  nq-rtt  two participants, one with 500 ms added delay (server to it)
          from 6 s to 18 s: `high-rtt` for that one only, raised then
          cleared, its level drops and recovers
  speaker two speakers of different loudness (aiortc's ssrc-audio-level):
          quiet alone, both, quiet alone, silence gives dominantSpeaker
          quiet, loud, quiet, null
  failover two nodes on a private PostgreSQL, two rooms on node a with an
          aiortc publisher and subscriber each (node b their fallback):
          node a killed (SIGKILL), everyone resumes at node b with the same
          room, participant and track SIDs, each subscriber decodes frames
          numbered above the last one before the kill within 10 s of it
  turn    coturn on loopback; Chromium (iceTransportPolicy relay) and a
          relay-only aiortc with joined's TURN credentials exchange media,
          each selected path starting at a relay candidate
  ipv6    vroom-server on ::1 alone (HTTP and media), two aiortc clients
          and Chromium (page from http://[::1]): they join, media flows,
          every path IPv6
  wss     vroom-server with a self-signed certificate: Chromium, trusting
          its key, loads the page over HTTPS, two pages join over WSS and
          decode each other
  drain   two nodes, a room on node a with an aiortc publisher and
          subscriber (no fallback): SIGTERM to node a; at --drain-timeout
          both get `reconnect`, resume at node b with the same room,
          participant and track SIDs, the subscriber decodes again, and
          node a exits 0

Simulcast and adaptive video (issue 12, PROTOCOL.md 7), run by name or all
four as `simulcast` (also in the default set):
  sim           Chromium (the demo page) publishes 3-layer VP8 simulcast;
                aiortc subscribers rendering 320x180 and 1280x720 decode the
                lowest and the largest layer; one switching to 320x180 follows
                within 3 s with no gap over 1 s and no decoder error
  sim-switchoff clientTrackSwitchOffControl "manual": switchOffTrack stops
                the frames, trackSwitchedOff disabled-by-subscriber, no new
                subscribeOffer; switchOnTrack: frames within 3 s, trackSwitchedOn
  sim-layers    both subscribers at 320x180: publisherLayers without "f" (the
                page stops encoding it); one at 1280x720 again: "f" is back
  sim-plain     a non-simulcast Chromium publisher: both subscribers (one with
                render dimensions) decode the published size

Downlink estimation and allocation (issue 13), by name or all three as
`bwe` (NOT in the default set; scripts/test.sh runs them as stage `bwe`):
  bwe-3         Chromium simulcast publisher, Chromium subscribers on 250
                kbit/s, 800 kbit/s and unlimited (htb) links: each settles
                on q / h-or-q / f within 10 s, then 15 s without loss or
                freezes, few PLIs and NACKs at the publisher
  bwe-cut       one Chromium subscriber cut to 250 kbit/s mid-call: below f
                within 3 s, no gap over 2 s; restored: f again within 15 s
  bwe-grid      grid mode, six aiortc publishers (one high priority), one
                Chromium subscriber at 600 kbit/s: the lowest priorities are
                switched off (network-congestion), back at 5 Mbit/s

--signaling-only passes a scenario that stops at its first media step when
every check before it passed: CI can guard the signaling half until the
media plane lands, then drop the flag.

Each scenario starts its own server (`--dev --http-port 0 --rtc-port 0`; the
cluster ones their nodes and PostgreSQL) and stops everything it started.
Run it as scripts/interop/run.sh, which sets up the venv and a loopback-only
network namespace. Exit status 0 when every scenario passed. Until the media plane lands, every scenario stops at its
first media step and says which one (the signaling before it is checked).
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import uuid
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from processes import Coturn, ImpairmentRelay, PostgreSQL, VroomServer, find_binary, free_port  # noqa: E402
from vroom_client import Participant, ProtocolError, make_token, sdp_media_sections, use_host_addresses  # noqa: E402

TONES = [440.0, 660.0, 880.0]
VIDEO_SIZE = (320, 240)
SCENARIO_TIMEOUT = 180


class ScenarioStopped(Exception):
    pass


class Report:
    """The checks of one scenario; `stop()` ends it at a step that failed."""

    def __init__(self, name):
        self.name = name
        self.checks = []
        self.stopped_at = None

    def check(self, label, ok, detail=""):
        self.checks.append((label, bool(ok), detail))
        print(f"    {'PASS' if ok else 'FAIL'} {label}{': ' + str(detail) if detail else ''}", flush=True)
        return bool(ok)

    def stop(self, stage, detail=""):
        self.stopped_at = f"{stage}: {detail}" if detail else stage
        print(f"    STOPPED at {self.stopped_at}", flush=True)
        raise ScenarioStopped(self.stopped_at)

    @property
    def passed(self):
        return self.stopped_at is None and all(ok for _, ok, _ in self.checks)

    @property
    def signaling_passed(self):
        """Every check before the media steps passed; a stop, if any, was at
        a media step (for --signaling-only, until the media plane lands)."""
        media_stop = self.stopped_at is None or self.stopped_at.startswith("media")
        return media_stop and all(ok for label, ok, _ in self.checks if not label.startswith("media"))


async def wait_until(condition, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    while True:
        if condition():
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(interval)


async def poll_value(read, condition, timeout, interval=0.3):
    """Reads `await read()` until `condition(value)` or `timeout`; the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await read()
        if condition(value) or time.monotonic() > deadline:
            return value
        await asyncio.sleep(interval)


# -- steps shared by the scenarios ---------------------------------------------

async def join_all(report, participants):
    for p in participants:
        try:
            await p.join()
        except Exception as error:
            report.stop(f"{p.identity}: join", repr(error))
    report.check("every participant joined", True, ", ".join(p.identity for p in participants))


async def publish_all(report, publishers):
    for p in publishers:
        await p.publish()
        ok, detail = p.stages.get("publishAnswer received", (False, "no reply"))
        if not ok:
            report.stop(f"{p.identity}: publish", detail)
    report.check("every publish answered with track SIDs", True)


async def wait_for_offers(report, subscribers, expected):
    """Each subscriber's latest subscribeOffer lists `expected[identity]`
    tracks (as (publisher identity, name) pairs) and has been answered."""

    def settled(p):
        listed = {(p.identities.get(t["participantSid"], t["participantSid"]), t["name"])
                  for t in p.latest_offer_tracks()}
        return listed == expected[p.identity] and p.answered_offers == len(p.offers) and p.offers

    await wait_until(lambda: all(settled(p) for p in subscribers), 15)
    for p in subscribers:
        listed = sorted(f"{p.identities.get(t['participantSid'], '?')}/{t['name']}" for t in p.latest_offer_tracks())
        report.check(f"{p.identity}'s subscribeOffer lists every other track and was answered",
                     settled(p), f"{len(p.offers)} offer(s): {', '.join(listed)}")


async def wait_for_media_path(report, participants, timeout=20):
    """Stops the scenario at the first media step that failed: aiortc could
    not use an SDP of the server, or ICE+DTLS did not connect."""
    for p in participants:
        for stage in ("publishAnswer applied by aiortc", "subscribeOffer applied by aiortc"):
            if stage in p.stages and not p.stages[stage][0]:
                report.stop(f"media: {p.identity}: {stage}", p.stages[stage][1])
    pcs = [(p, which, pc) for p in participants for which, pc in (("publisher", p.pc_pub), ("subscriber", p.pc_sub))
           if pc is not None]
    connected = await wait_until(lambda: all(pc.connectionState == "connected" for _, _, pc in pcs), timeout)
    states = ", ".join(f"{p.identity}/{which}={pc.connectionState}" for p, which, pc in pcs)
    if not connected:
        report.stop("media: ICE+DTLS connection", states)
    report.check("every PeerConnection connected (ICE+DTLS)", True, states)


def check_video(report, label, sink, since=0.0):
    frames = sink.frames_since(since) if sink else []
    sizes = sorted({(w, h) for _, w, h, _ in frames})
    numbers = [n for *_, n in frames if n is not None]
    report.check(f"{label}: frames decoded", len(frames) >= 30, f"{len(frames)} frames")
    report.check(f"{label}: every frame {VIDEO_SIZE[0]}x{VIDEO_SIZE[1]}", sizes == [VIDEO_SIZE], f"sizes {sizes}")
    readable = len(numbers) / len(frames) if frames else 0
    report.check(f"{label}: frame numbers readable", readable >= 0.9, f"{readable:.0%}")
    increasing = all(b > a for a, b in zip(numbers, numbers[1:]))
    report.check(f"{label}: frame numbers increase", numbers and increasing,
                 f"{numbers[:3]} ... {numbers[-3:]}" if numbers else "none")


def check_tone(report, label, sink, tone):
    frequency = sink.audio_frequency() if sink else None
    report.check(f"{label}: tone {tone:.0f} Hz", frequency is not None and abs(frequency - tone) <= 10,
                 f"dominant {frequency:.0f} Hz" if frequency else "no audio decoded")


async def decoded_share(report, label, source, sink):
    """Checks that >= 95% of the frame numbers `source` sent, from the first
    one `sink` decoded up to now, get decoded. Frames still in flight or
    waiting for a repair (a loaded machine decodes late) get up to 8 s to
    arrive, so only real losses count."""
    numbers = lambda: set(sink.numbers()) if sink else set()
    if not numbers():
        return report.check(label, False, "no frame decoded")
    last = source.sent - 1
    await wait_until(lambda: max(numbers()) >= last, 8)
    seen = numbers()
    wanted = range(min(seen), last + 1)
    decoded = sum(1 for n in wanted if n in seen)
    share = decoded / len(wanted)
    return report.check(label, share >= 0.95, f"{decoded} of {len(wanted)} ({share:.1%})")


# -- scenarios -----------------------------------------------------------------

async def scenario_a(report, context, count):
    room = f"interop-a{count}"
    participants = [Participant(context.server.url, f"p{i}", room, tone=TONES[i], log=context.log)
                    for i in range(count)]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    await publish_all(report, participants)
    names = {p.identity for p in participants}
    await wait_for_offers(report, participants, {
        p.identity: {(q, t) for q in names - {p.identity} for t in ("mic", "camera")} for p in participants})
    await wait_for_media_path(report, participants)

    def media_flowing():
        for p in participants:
            sinks = p.sinks_by_publisher()
            for q in participants:
                if q is p:
                    continue
                video, audio = sinks.get((q.identity, "video")), sinks.get((q.identity, "audio"))
                if not video or len(video.frames) < 60 or not audio or len(audio.audio_frames) < 100:
                    return False
        return True

    await wait_until(media_flowing, 25)
    for p in participants:
        sinks = p.sinks_by_publisher()
        for q in participants:
            if q is not p:
                check_video(report, f"{p.identity} <- {q.identity} video", sinks.get((q.identity, "video")))
                check_tone(report, f"{p.identity} <- {q.identity} audio", sinks.get((q.identity, "audio")), q.tone)


async def scenario_b(report, context):
    room = "interop-b"
    alice = Participant(context.server.url, "alice", room, tone=TONES[0], log=context.log)
    bob = Participant(context.server.url, "bob", room, tone=TONES[1], log=context.log)
    context.cleanup.extend([alice.close, bob.close])
    await join_all(report, [alice, bob])
    await publish_all(report, [alice])
    await wait_for_offers(report, [bob], {"bob": {("alice", "mic"), ("alice", "camera")}})

    # The media checks need media; the signaling checks after them run anyway.
    media = True
    try:
        await wait_for_media_path(report, [alice, bob])
        media = await wait_until(lambda: len(getattr(bob.sinks_by_publisher().get(("alice", "video")),
                                                     "frames", [])) >= 30, 15)
        report.check("bob decodes alice's video before the disable", media)
    except ScenarioStopped as stopped:
        media = False
        report.stopped_at = None  # keep going: the signaling checks below
        report.checks.append((f"media ({stopped})", False, ""))
    sink = bob.sinks_by_publisher().get(("alice", "video")) if media else None
    camera_sid = alice.published["camera"]["sid"]

    start = len(bob.messages)
    disabled_at = time.monotonic()
    await alice.set_track_enabled("camera", False)
    try:
        await bob.wait_for(lambda m: m.get("type") == "trackDisabled" and m.get("trackSid") == camera_sid, 5, start)
        report.check("bob is told trackDisabled", True)
    except asyncio.TimeoutError:
        report.check("bob is told trackDisabled", False, "no event in 5 s")
    if sink:
        await asyncio.sleep(3)
        late = sink.frames_since(disabled_at + 1.0)
        report.check("no frames forwarded while disabled (from 1 s after the disable)", not late,
                     f"{len(late)} frame(s)")
    else:
        print("    ---- not run: no frames while disabled (no media)")

    start = len(bob.messages)
    enabled_at = time.monotonic()
    await alice.set_track_enabled("camera", True)
    try:
        await bob.wait_for(lambda m: m.get("type") == "trackEnabled" and m.get("trackSid") == camera_sid, 5, start)
        report.check("bob is told trackEnabled", True)
    except asyncio.TimeoutError:
        report.check("bob is told trackEnabled", False, "no event in 5 s")
    if sink:
        resumed = await wait_until(lambda: len(sink.frames_since(enabled_at)) > 0, 5, 0.05)
        delay = (sink.frames_since(enabled_at)[0][0] - enabled_at) if resumed else None
        report.check("frames resume within 5 s of the enable", resumed,
                     f"first frame after {delay:.2f} s" if resumed else "none in 5 s")
    else:
        print("    ---- not run: frames resume within 5 s (no media)")

    offers_before = len(bob.offers)
    camera_mid = next(t["mid"] for t in bob.latest_offer_tracks() if t["trackSid"] == camera_sid)
    await alice.unpublish("camera")
    report.check("alice's new publishAnswer no longer lists the camera", "camera" not in alice.published,
                 ", ".join(alice.published))
    arrived = await wait_until(lambda: len(bob.offers) > offers_before, 10)
    if not arrived:
        report.check("bob gets a new subscribeOffer after the unpublish", False, "none in 10 s")
        return
    offer = bob.offers[-1][1]
    report.check("the new subscribeOffer no longer lists the camera",
                 all(t["trackSid"] != camera_sid for t in offer["tracks"]),
                 ", ".join(f"{t['name']}={t['trackSid']}" for t in offer["tracks"]))
    sections = {mid: direction for mid, direction, _, _ in sdp_media_sections(offer["sdp"])}
    report.check("its m-line stays, inactive (PROTOCOL.md 3.4)", sections.get(camera_mid) == "inactive",
                 f"mid {camera_mid}: {sections.get(camera_mid)}")


async def scenario_c(report, context):
    room = "interop-c"
    relay = ImpairmentRelay(context.impair, context.server.rtc_ports[0], seed=7, drop=0.05, delay_ms=50,
                            jitter_ms=10).start()
    context.cleanup.append(lambda: asyncio.sleep(0, relay.stop()))
    print(f"    vroom-impair on UDP {relay.port} -> {context.server.rtc_ports[0]}: 5% loss, 50 +/- 10 ms, both ways")
    alice = Participant(context.server.url, "alice", room, tone=TONES[0], relay_port=relay.port, log=context.log)
    bob = Participant(context.server.url, "bob", room, relay_port=relay.port, log=context.log)
    context.cleanup.extend([alice.close, bob.close])
    await join_all(report, [alice, bob])
    await publish_all(report, [alice])
    await wait_for_offers(report, [bob], {"bob": {("alice", "mic"), ("alice", "camera")}})
    await wait_for_media_path(report, [alice, bob], timeout=30)

    await asyncio.sleep(20)
    await decoded_share(report, ">= 95% of the frame numbers sent are decoded",
                        alice.video_source, bob.sinks_by_publisher().get(("alice", "video")))
    retransmissions = context.server.retransmission_count()
    report.check("the server's retransmission counter is above 0",
                 retransmissions is not None and retransmissions > 0,
                 "TODO: the server exposes no retransmission counter yet "
                 "(processes.VroomServer.retransmission_count)" if retransmissions is None else retransmissions)
    counters = relay.stop()
    up, down = (counters or {}).get("upstream", {}), (counters or {}).get("downstream", {})
    report.check("the relay was in the path and dropped datagrams both ways",
                 up.get("dropped", 0) > 0 and down.get("dropped", 0) > 0,
                 f"up {up.get('received')}/{up.get('dropped')} dropped, down {down.get('received')}/"
                 f"{down.get('dropped')} dropped")


async def scenario_d(report, context):
    from chromium import DemoPageBrowser

    room = "interop-d"
    aio = Participant(context.server.url, "aiortc", room, tone=TONES[1], log=context.log)
    context.cleanup.append(aio.close)
    await join_all(report, [aio])
    await publish_all(report, [aio])
    browser = DemoPageBrowser(context.server.url, make_token("chrome", room), room, binary=context.chromium,
                              log_path=os.path.join(context.log_dir, "chromium-d.log"))
    context.cleanup.append(browser.close)
    await browser.__aenter__()
    print(f"    demo page served by {browser.served_by}")

    state = {}

    async def page_state():
        nonlocal state
        state = await browser.state()
        return state

    async def wait_page(condition, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition(await page_state()):
                return True
            await asyncio.sleep(0.3)
        return False

    report.check("Chromium joined", await wait_page(lambda s: s["joined"], 20), f"errors: {state.get('errors')}")
    report.check("Chromium's publish answered (mic + camera SIDs)",
                 await wait_page(lambda s: {"mic", "camera"} <= set(s["published"] or {}), 15),
                 ", ".join(f"{k}={v['sid']}" for k, v in (state.get("published") or {}).items()))
    report.check("Chromium answered a subscribeOffer listing aiortc's tracks",
                 await wait_page(lambda s: s["answeredOffers"] >= 1 and len(s["remote"]) == 2, 15),
                 f"remote {sorted(t['name'] for t in (state.get('remote') or {}).values())}")
    await wait_for_offers(report, [aio], {"aiortc": {("chrome", "mic"), ("chrome", "camera")}})

    # The page's camera button: setTrackEnabled, seen by the other side.
    camera_sid = state["published"]["camera"]["sid"]
    for enabled, event in ((False, "trackDisabled"), (True, "trackEnabled")):
        start = len(aio.messages)
        await browser.evaluate(f"vroom.setTrackEnabled('video', {'true' if enabled else 'false'})")
        try:
            await aio.wait_for(lambda m: m.get("type") == event and m.get("trackSid") == camera_sid, 5, start)
            report.check(f"the page's setTrackEnabled({enabled}) reaches aiortc as {event}", True)
        except asyncio.TimeoutError:
            report.check(f"the page's setTrackEnabled({enabled}) reaches aiortc as {event}", False, "no event")

    errors = [e for e in state.get("errors", []) if "publisher answer" in e or "subscriber offer" in e]
    if errors:
        report.stop("media: Chromium could not use the server's SDP", "; ".join(errors))
    await wait_for_media_path(report, [aio])
    if not await wait_page(lambda s: s["pub"] == "connected" and s["sub"] == "connected", 20):
        report.stop("media: Chromium's ICE+DTLS", f"publisher {state['pub']}, subscriber {state['sub']}")

    # Video starts at the first keyframe after the subscriber connection is
    # up (the server asks for one then): allow it a few seconds to appear.
    for _ in range(40):
        first = await browser.stats()
        if first["inboundVideo"]:
            break
        await asyncio.sleep(0.25)
    await asyncio.sleep(3)
    second = await browser.stats()
    frames = [(a["framesDecoded"], b["framesDecoded"]) for a, b in zip(first["inboundVideo"], second["inboundVideo"])]
    report.check("Chrome: framesDecoded of the remote video increases",
                 frames and all(b > a for a, b in frames), f"{frames}")
    packets = [s["packetsReceived"] for s in second["inboundAudio"]]
    report.check("Chrome: packetsReceived of the remote audio", packets and all(p > 0 for p in packets), f"{packets}")

    # Chrome's encoder ramps up only with working congestion feedback
    # (INTEROP.md): give it up to 20 s to pass 300 kbit/s over 2 s. The
    # camera's outbound-rtp entries are summed: one per simulcast layer.
    best = 0.0
    deadline = time.monotonic() + 20
    previous = await browser.stats()
    while time.monotonic() < deadline and best <= 300:
        await asyncio.sleep(2)
        current = await browser.stats()
        pairs = list(zip(previous["outboundVideo"], current["outboundVideo"]))
        seconds = (pairs[0][1]["timestamp"] - pairs[0][0]["timestamp"]) / 1000 if pairs else 0
        if seconds > 0:
            best = max(best, sum(b["bytesSent"] - a["bytesSent"] for a, b in pairs) * 8 / seconds / 1000)
        previous = current
    report.check("Chrome's sent video above 300 kbit/s", best > 300, f"best {best:.0f} kbit/s")

    # The server offers ICE-TCP too, below UDP (PROTOCOL.md 9): with UDP
    # working, Chromium nominates and keeps the UDP pairs.
    pairs = await browser.evaluate(SELECTED_PAIRS_JS)
    report.check("Chrome keeps UDP where UDP works (getStats: both selected pairs are UDP; TCP is offered too)",
                 all(p and p["local"] == "udp" and p["remote"] == "udp" for p in (pairs or {}).values()),
                 f"{pairs}")

    sinks = aio.sinks_by_publisher()
    video, audio = sinks.get(("chrome", "video")), sinks.get(("chrome", "audio"))
    report.check("aiortc decodes Chrome's video", video and len(video.frames) >= 30,
                 f"{len(video.frames) if video else 0} frames, sizes "
                 f"{sorted({(w, h) for _, w, h, _ in video.frames}) if video else []}")
    report.check("aiortc decodes Chrome's audio", audio and len(audio.audio_frames) >= 50,
                 f"{len(audio.audio_frames) if audio else 0} frames")

    # The page asks for aiortc's video at the size of its tile
    # (setContentPreferences, PROTOCOL.md 7); a server without adaptive
    # video refuses it, which the page notes and otherwise ignores.
    aiortc_camera = aio.published["camera"]["sid"]
    rendered = await browser.evaluate(f"""(() => {{
        for (const tile of document.querySelectorAll(".tile[data-mid]")) {{
          const info = vroom.remote[tile.dataset.mid];
          if (!info || info.trackSid !== {json.dumps(aiortc_camera)}) continue;
          const video = tile.querySelector("video"), scale = window.devicePixelRatio || 1;
          return {{width: Math.round(video.clientWidth * scale), height: Math.round(video.clientHeight * scale)}};
        }}
        return null; }})()""")
    sent = (await browser.evaluate("vroom.contentPreferences")).get(aiortc_camera)
    report.check("the page sent setContentPreferences with the rendered size of aiortc's video",
                 sent is not None and sent == rendered and sent["width"] > 0,
                 f"sent {sent}, tile {rendered}; server's refusals: {await browser.evaluate('vroom.unsupported')}")

    start = len(aio.messages)
    await browser.evaluate("vroom.leave()")
    try:
        await aio.wait_for(lambda m: m.get("type") == "participantDisconnected", 10, start)
        report.check("the page's Leave: aiortc is told participantDisconnected", True)
    except asyncio.TimeoutError:
        report.check("the page's Leave: aiortc is told participantDisconnected", False, "no event in 10 s")


async def scenario_self(report, context):
    """The tooling without the server: one aiortc publisher straight to one
    aiortc receiver, through vroom-impair (5% loss, 50 +/- 10 ms jitter both
    ways), checked as the server scenarios check: proves the sources, sinks,
    frame-number and tone decoding, the relay and the 95% measure today."""
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
    from aiortc.rtcconfiguration import RTCBundlePolicy
    from media import NumberedVideoTrack, ToneTrack, TrackSink
    from vroom_client import munge_candidates

    config = RTCConfiguration(bundlePolicy=RTCBundlePolicy.MAX_BUNDLE)
    sender, receiver = RTCPeerConnection(config), RTCPeerConnection(config)
    context.cleanup.extend([sender.close, receiver.close])
    video = NumberedVideoTrack(*VIDEO_SIZE)
    sender.addTransceiver(ToneTrack(TONES[2]), direction="sendonly")
    sender.addTransceiver(video, direction="sendonly")
    sinks = {}
    receiver.on("track", lambda track: sinks.setdefault(track.kind, TrackSink(track, None)))
    context.cleanup.append(lambda: asyncio.sleep(0, [sink.stop() for sink in sinks.values()]))
    await sender.setLocalDescription(await sender.createOffer())
    # The receiver is told a port nobody reads for the sender, so its own
    # checks go nowhere and ICE can only succeed through the relay (else
    # the sender learns the receiver's direct address from its checks and
    # media bypasses the relay).
    dead = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    dead.bind(("127.0.0.1", 0))
    context.cleanup.append(lambda: asyncio.sleep(0, dead.close()))
    await receiver.setRemoteDescription(
        RTCSessionDescription(munge_candidates(sender.localDescription.sdp, dead.getsockname()[1]), "offer"))
    await receiver.setLocalDescription(await receiver.createAnswer())
    answer = receiver.localDescription.sdp
    port = next(int(l.split(" ")[5]) for l in answer.splitlines() if l.startswith("a=candidate:"))
    relay = ImpairmentRelay(context.impair, port, seed=7, drop=0.05, delay_ms=50, jitter_ms=10).start()
    context.cleanup.append(lambda: asyncio.sleep(0, relay.stop()))
    await sender.setRemoteDescription(RTCSessionDescription(munge_candidates(answer, relay.port), "answer"))
    connected = await wait_until(lambda: sender.connectionState == receiver.connectionState == "connected", 20)
    if not connected:
        report.stop("aiortc to aiortc through the relay", f"{sender.connectionState}/{receiver.connectionState}")
    report.check("aiortc to aiortc connected through vroom-impair", True)
    await asyncio.sleep(15)
    check_video(report, "receiver video", sinks.get("video"))
    check_tone(report, "receiver audio", sinks.get("audio"), TONES[2])
    await decoded_share(report, ">= 95% of the frame numbers sent are decoded (aiortc NACKs)", video,
                        sinks.get("video"))
    counters = relay.stop()
    up, down = (counters or {}).get("upstream", {}), (counters or {}).get("downstream", {})
    report.check("the relay carried the media and dropped some both ways",
                 up.get("received", 0) > 500 and up.get("dropped", 0) > 0 and down.get("dropped", 0) > 0,
                 f"up: received {up.get('received')}, dropped {up.get('dropped')}; "
                 f"down: received {down.get('received')}, dropped {down.get('dropped')}")


# -- network quality and dominant speaker (issue 6) -------------------------------

def quality_of(p, subject_sid, since=0.0):
    """[(time, message)] of the networkQuality messages `p` got about `subject_sid`."""
    return [(t, m) for t, m in p.events_of("networkQuality", since) if m.get("participantSid") == subject_sid]


def describe_quality(messages, t0):
    return "; ".join(f"+{t - t0:.1f}s level {m['level']} {m['warnings']}" for t, m in messages)


async def quality_scenario(report, context, room, warning, relay, impaired_name, names, clear_at, start_wait):
    """Shared by nq-loss and nq-rtt: `impaired_name` goes through `relay`
    (vroom-impair's options; its impairment ends `clear_at` s after the relay
    starts). Checks that everyone hears `warning` about it and about nobody
    else, that it clears after the impairment, that the level drops and
    recovers, and the once-a-second limit."""
    options, extra = relay
    relay = ImpairmentRelay(context.impair, context.server.rtc_ports[0], seed=11, extra_args=extra, **options).start()
    started = time.monotonic()
    context.cleanup.append(lambda: asyncio.sleep(0, relay.stop()))
    print(f"    vroom-impair on UDP {relay.port} -> {context.server.rtc_ports[0]}: {options} {' '.join(extra)}")
    participants = [Participant(context.server.url, name, room, tone=TONES[i], log=context.log, publish_video=False,
                                relay_port=relay.port if name == impaired_name else None)
                    for i, name in enumerate(names)]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    await publish_all(report, participants)
    await wait_for_offers(report, participants, {p.identity: {(q, "mic") for q in names if q != p.identity}
                                                 for p in participants})
    await wait_for_media_path(report, participants, timeout=30)
    sid = {p.identity: p.participant_sid for p in participants}
    impaired = sid[impaired_name]

    def told(p, wanted):
        return any(wanted(m) for _, m in quality_of(p, impaired))

    raised = await wait_until(lambda: all(told(p, lambda m: warning in m["warnings"]) for p in participants),
                              max(5, started + start_wait - time.monotonic()))
    first = min((t for p in participants for t, m in quality_of(p, impaired) if warning in m["warnings"]),
                default=None)
    report.check(f"everyone is told {impaired_name} has {warning}", raised,
                 f"first after {first - started:.1f} s of the relay" if first else "not in time")
    check_operator_view(report, context, room, warning, impaired_name, names)
    clear_time = started + clear_at
    await asyncio.sleep(max(0, clear_time - time.monotonic()))
    cleared = await wait_until(lambda: all(told(p, lambda m: warning not in m["warnings"]) and
                                           warning not in quality_of(p, impaired)[-1][1]["warnings"]
                                           for p in participants), 20)
    last = quality_of(participants[0], impaired)
    report.check(f"{warning} clears after the impairment stops", cleared,
                 f"at +{last[-1][0] - clear_time:.1f} s after it stopped" if cleared and last else "still raised")
    await asyncio.sleep(2)
    levels = [m["level"] for _, m in quality_of(participants[0], impaired)]
    report.check(f"{impaired_name}'s level drops while impaired and recovers", levels and min(levels) <= 3 and
                 levels[-1] >= 4, f"levels {levels}")
    others = [(p.identity, m) for p in participants for _, m in p.events_of("networkQuality")
              if m.get("participantSid") != impaired and warning in m["warnings"]]
    report.check(f"nobody else is warned of {warning}", not others, f"{others[:3]}" if others else
                 f"{sum(len(p.events_of('networkQuality')) for p in participants)} networkQuality messages in all")
    for name in names:
        spaced = [t for t, _ in quality_of(participants[0], sid[name])]
        gaps = [b - a for a, b in zip(spaced, spaced[1:])]
        report.check(f"networkQuality about {name} at most once a second", all(g >= 0.9 for g in gaps),
                     f"{len(spaced)} messages, shortest gap {min(gaps):.2f} s" if gaps else f"{len(spaced)} message(s)")
    print(f"    what {names[0]} heard about {impaired_name}: "
          f"{describe_quality(quality_of(participants[0], impaired), started)}")
    counters = relay.stop() or {}
    print(f"    relay counters: {json.dumps(counters)}")


def check_operator_view(report, context, room, warning, impaired_name, names):
    """While the impairment lasts, an operator sees the same as the room:
    /Stats rates the impaired participant with `warning` and nobody else,
    and /metrics counts a participant at level 3 or below."""
    stats = context.server.get_json(f"/v1/Rooms/{room}/Stats")
    rows = {p["identity"]: p for p in stats.get("participants", [])}

    def quality(name):
        return (rows.get(name) or {}).get("network_quality") or {}

    report.check(f"/Stats rates {impaired_name} with {warning}", warning in quality(impaired_name).get("warnings", []),
                 json.dumps(quality(impaired_name)))
    others = [name for name in names if name != impaired_name and warning in quality(name).get("warnings", [])]
    report.check(f"/Stats rates nobody else with {warning}", not others, f"also: {others}" if others else
                 ", ".join(f"{name} level {quality(name).get('level')}" for name in names))
    for name in names:
        row = rows.get(name) or {}
        tracks = [{k: t.get(k) for k in ("name", "packets_received", "packets_lost", "fraction_lost", "jitter_ms")}
                  for t in row.get("published_tracks", [])]
        print(f"    /Stats {name}: network_quality {json.dumps(quality(name))}, rtt {row.get('round_trip_time_ms')}, "
              f"published {json.dumps(tracks)}")
    level = quality(impaired_name).get("level")
    metrics = context.server.get("/metrics", auth=False)[1]
    counted = [float(line.split()[-1]) for line in metrics.splitlines()
               if line.startswith(f'vroom_network_quality_participants{{level="{level}"}}')]
    report.check(f"/metrics counts a participant at {impaired_name}'s level {level}", counted and counted[0] >= 1,
                 f"vroom_network_quality_participants{{level=\"{level}\"}} = {counted[0] if counted else 'absent'}")


async def scenario_quality_loss(report, context):
    # The loss starts 4 s after the relay, once everyone is connected: DTLS
    # through 10% loss from the start took aiortc's doubling retransmission
    # timer (1, 2, 4, 8, 16 s) past the 30 s wait once (p2's publisher still
    # "connecting"); connecting through loss is scenario c's (5%).
    await quality_scenario(
        report, context, "interop-nq-loss", "high-packet-loss",
        ({"drop": 0.10}, ["--impair-after", "4", "--clear-after", "24"]),
        "p2", ["p0", "p1", "p2"], clear_at=24, start_wait=24)


async def scenario_quality_rtt(report, context):
    await quality_scenario(
        report, context, "interop-nq-rtt", "high-rtt",
        ({"delay_ms": 500}, ["--directions", "down", "--impair-after", "6", "--clear-after", "18"]),
        "p1", ["p0", "p1"], clear_at=18, start_wait=18)


async def scenario_speaker(report, context):
    room = "interop-speaker"
    quiet = Participant(context.server.url, "quiet", room, tone=TONES[0], log=context.log, publish_video=False,
                        amplitude=0)
    loud = Participant(context.server.url, "loud", room, tone=TONES[1], log=context.log, publish_video=False,
                       amplitude=0)
    participants = [quiet, loud]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    await publish_all(report, participants)
    await wait_for_offers(report, participants, {"quiet": {("loud", "mic")}, "loud": {("quiet", "mic")}})
    await wait_for_media_path(report, participants)
    await asyncio.sleep(1.5)
    t0 = time.monotonic()
    names = {quiet.participant_sid: "quiet", loud.participant_sid: "loud", None: None}
    # About -33 dBov and -13 dBov (ToneTrack).
    steps = [("quiet speaks", 1000, 0, 3.0), ("both speak", 1000, 10000, 3.0), ("quiet alone again", 1000, 0, 3.0),
             ("silence", 0, 0, 3.5)]
    for label, quiet_amplitude, loud_amplitude, seconds in steps:
        quiet.audio_source.amplitude = quiet_amplitude
        loud.audio_source.amplitude = loud_amplitude
        print(f"    +{time.monotonic() - t0:.1f}s {label}")
        await asyncio.sleep(seconds)
    expected = ["quiet", "loud", "quiet", None]
    for p in participants:
        events = p.events_of("dominantSpeaker")
        seen = [names.get(m.get("participantSid"), m.get("participantSid")) for _, m in events]
        report.check(f"{p.identity} hears dominantSpeaker {expected}", seen == expected,
                     ", ".join(f"+{t - t0:.1f}s {names.get(m.get('participantSid'), '?')}" for t, m in events))


# -- simulcast and adaptive video (issue 12, PROTOCOL.md 7) --------------------
#
# Chromium (the demo page: mic + camera, the camera as 3-layer VP8 simulcast
# from a 1280x720 fake capture, rids q, h, f lowest first) publishes; aiortc
# subscribers that publish nothing ask for render dimensions, switch the
# track off and on, and record each decoded frame's arrival time and size.
# Chromium lowers its resolutions under CPU load, so decoded sizes are
# compared with the sizes Chromium's getStats() says it encodes per rid.

LAYER_RIDS = ["q", "h", "f"]
SMALL, LARGE = (320, 180), (1280, 720)


def simulcast_rids(lines, direction):
    """The rids of an m-line's `a=simulcast:<direction> ...` line, or None."""
    for line in lines:
        if line.startswith(f"a=simulcast:{direction} "):
            return [rid.lstrip("~") for rid in line.split(" ", 1)[1].replace(",", ";").split(";")]
    return None


def section_of(sdp, mid):
    return next((lines for m, _, _, lines in sdp_media_sections(sdp) if m == mid), [])


def recent_size(sink, seconds=1.0):
    """The most common decoded size over the last `seconds` (None: no frame)."""
    frames = sink.frames_since(time.monotonic() - seconds) if sink else []
    return Counter((w, h) for _, w, h, _ in frames).most_common(1)[0][0] if frames else None


def largest_gap(sink, start, end):
    """(length, start time) of the longest time without a decoded frame
    between `start` and `end` (the window's edges count: no frame at all is
    one gap of its length)."""
    times = [start] + [t for t, *_ in sink.frames if start <= t <= end] + [end]
    return max((b - a, a) for a, b in zip(times, times[1:]))


def size_timeline(sink, t0):
    """'+0.0s 320x180, +2.1s 1280x720, ...': when the decoded size changed."""
    out, last = [], None
    for t, w, h, _ in sink.frames:
        if (w, h) != last:
            out.append(f"{t - t0:+.1f}s {w}x{h}")
            last = (w, h)
    return ", ".join(out[-12:])


async def chrome_layers(browser):
    """{rid: outbound-rtp numbers} of Chromium's camera (rid None without simulcast)."""
    return {entry.get("rid"): entry for entry in (await browser.stats())["outboundVideo"]}


def describe_layers(layers):
    return ", ".join(f"{rid}: {e['frameWidth']}x{e['frameHeight']} {e['framesPerSecond']:.0f} fps "
                     f"{e['framesEncoded']} frames{' (' + e['qualityLimitationReason'] + ')' if e.get('qualityLimitationReason') not in (None, 'none') else ''}"
                     for rid, e in sorted(layers.items(), key=lambda kv: str(kv[0])))


async def encoding_layers(browser, seconds=2.0):
    """{rid: (width, height)} of the layers whose framesEncoded grew over `seconds`."""
    first = await chrome_layers(browser)
    await asyncio.sleep(seconds)
    second = await chrome_layers(browser)
    return {rid: (e["frameWidth"], e["frameHeight"]) for rid, e in second.items()
            if rid in first and e["framesEncoded"] > first[rid]["framesEncoded"]}, second


async def chromium_publisher(report, context, room, subscribers, simulcast=True, profiles=None):
    """The aiortc `subscribers` join (publishing nothing; `profiles` gives a
    join's bandwidthProfile by identity), then the demo page in Chromium
    joins as "chrome" and publishes mic + camera: 3-layer simulcast, or one
    plain stream (`?simulcast=0`). Returns (browser, camera SID) once every
    subscriber answered an offer listing Chrome's tracks and connected."""
    from chromium import DemoPageBrowser

    profiles = profiles or {}
    context.cleanup.extend(p.close for p in subscribers)
    for p in subscribers:
        try:
            await p.join(bandwidth_profile=profiles.get(p.identity))
        except Exception as error:
            report.stop(f"{p.identity}: join", repr(error))
    report.check("every subscriber joined", True, ", ".join(
        p.identity + (f" ({json.dumps(profiles[p.identity])})" if p.identity in profiles else "") for p in subscribers))
    browser = DemoPageBrowser(context.server.url, make_token("chrome", room), room, binary=context.chromium,
                              log_path=os.path.join(context.log_dir, f"chromium-{room}.log"),
                              query={} if simulcast else {"simulcast": "0"}, current_page=True)
    context.cleanup.append(browser.close)
    await browser.__aenter__()
    print(f"    demo page served by {browser.served_by}")

    state = {}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = await browser.state()
        if "camera" in (state.get("published") or {}):
            break
        await asyncio.sleep(0.3)
    published = state.get("published") or {}
    if "camera" not in published:
        report.stop("Chromium: join and publish", f"errors: {state.get('errors')}")
    camera = published["camera"]
    report.check("Chromium joined and published mic + camera", True,
                 ", ".join(f"{k}={v['sid']}" for k, v in published.items()))
    sdp = await browser.evaluate("vroom.publishSdp")
    offer, answer = section_of(sdp["offer"], camera["mid"]), section_of(sdp["answer"], camera["mid"])
    capture = await browser.evaluate("vroom.localStream.getVideoTracks()[0].getSettings()")
    print(f"    Chromium's camera captures {capture.get('width')}x{capture.get('height')}")
    if simulcast:
        offered = simulcast_rids(offer, "send")
        report.check("Chromium offers the camera as simulcast, lowest first (a=simulcast:send q;h;f)",
                     offered == LAYER_RIDS, f"{offered}; a=rid lines {[l for l in offer if l.startswith('a=rid:')]}")
        entry = next((t for t in await browser.evaluate("vroom.publishTracks") or [] if t.get("name") == "camera"), {})
        width, height = capture.get("width", 0), capture.get("height", 0)
        expected = [{"rid": rid, "width": round(width / scale), "height": round(height / scale)}
                    for rid, scale in zip(LAYER_RIDS, (4, 2, 1))]
        report.check("the page's tracks entry gives each layer's size from the capture (PROTOCOL.md 7 layers)",
                     entry.get("layers") == expected and width > 0, f"layers {entry.get('layers')}")
        accepted = simulcast_rids(answer, "recv")
        report.check("the publishAnswer accepts the 3 layers (a=simulcast:recv q;h;f) [server: simulcast]",
                     accepted is not None and sorted(accepted) == sorted(LAYER_RIDS),
                     f"a=simulcast:recv {';'.join(accepted)}" if accepted else
                     "the answer's camera m-line has no a=simulcast:recv (the server refused or ignored simulcast)")
    else:
        report.check("Chromium offers the camera without simulcast (?simulcast=0)",
                     simulcast_rids(offer, "send") is None and not any(l.startswith("a=rid:") for l in offer))
    await wait_for_offers(report, subscribers, {p.identity: {("chrome", "mic"), ("chrome", "camera")}
                                                for p in subscribers})
    await wait_for_media_path(report, subscribers)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and state.get("pub") != "connected":
        await asyncio.sleep(0.3)
        state = await browser.state()
    if state.get("pub") != "connected":
        report.stop("media: Chromium's publisher ICE+DTLS", f"publisher {state.get('pub')}")
    return browser, camera["sid"]


async def chrome_video_sinks(report, subscribers, frames=30, timeout=20):
    """{identity: TrackSink} of Chrome's camera, once each has `frames` frames."""
    def sinks():
        return {p.identity: p.sinks_by_publisher().get(("chrome", "video")) for p in subscribers}
    flowing = await wait_until(lambda: all(s is not None and len(s.frames) >= frames for s in sinks().values()),
                               timeout)
    found = sinks()
    detail = ", ".join(f"{name}: {len(s.frames) if s else 0} frames, now {recent_size(s)}" for name, s in found.items())
    if not flowing:
        report.stop("media: every subscriber decodes Chrome's camera", detail)
    report.check("every subscriber decodes Chrome's camera", True, detail)
    return found


async def check_active_layers(report, browser, camera, timeout=40):
    """Chromium really encodes every layer the server names active in its
    latest `publisherLayers` for `camera` (all three before any): it does
    once the answer accepts simulcast, and adds the upper layers as its
    bandwidth estimate grows, which took about 30 s on this loopback for
    one stream to ramp up to 960x540 and 46 s to 1280x720. With adaptive
    simulcast the page pauses the others, so a layer nobody needs (no
    subscriber renders at its size) is not expected."""
    deadline = time.monotonic() + timeout
    while True:
        named = [m for _, m in await browser.messages("publisherLayers", 0) if m.get("trackSid") == camera]
        wanted = set(named[-1].get("active") or []) if named else set(LAYER_RIDS)
        encoding, layers = await encoding_layers(browser)
        if (wanted <= set(encoding) and len(wanted) >= 2) or time.monotonic() > deadline:
            break
    report.check("Chromium encodes every layer the server names active, at least 2 (getStats outbound-rtp per rid) "
                 "[needs the answer's a=simulcast]", wanted <= set(encoding) and len(wanted) >= 2,
                 f"active {sorted(wanted)}; {describe_layers(layers)}")
    return encoding


async def content_preferences(report, p, track_sid, size):
    """`setContentPreferences` with render dimensions `size`; checks its `ok`."""
    try:
        await p.set_content_preferences(track_sid, *size)
        return report.check(f"{p.identity}: setContentPreferences {size[0]}x{size[1]} answered ok", True)
    except (ProtocolError, asyncio.TimeoutError) as error:
        return report.check(f"{p.identity}: setContentPreferences {size[0]}x{size[1]} answered ok "
                            f"[server: setContentPreferences]", False, str(error))


def check_smooth(report, label, sink, start, end):
    """No gap over 1 s between `sink`'s frames in [start, end], no decode failure."""
    gap, at = largest_gap(sink, start, end)
    count = len([f for f in sink.frames if start <= f[0] <= end])
    report.check(f"{label}: no gap over 1 s between decoded frames", gap <= 1.0,
                 f"largest gap {gap:.2f} s at +{at - start:.1f} s, {count} frames in {end - start:.1f} s")
    failures = sink.decode_failures()
    report.check(f"{label}: no decoder error (aiortc's decode failures)", not failures and sink.error is None,
                 f"{len(failures)} failure(s){': ' + failures[0][2] if failures else ''}"
                 f"{'' if sink.decoder_thread else ' (decoder thread unknown: every receiver counted)'}"
                 f"{'; sink error ' + sink.error if sink.error else ''}")


def viewer(context, identity, room, **options):
    """An aiortc participant that publishes nothing and keeps Chromium's
    frames as they are (no frame numbers to read): a simulcast subscriber."""
    return Participant(context.server.url, identity, room, log=context.log, publish_audio=False,
                       publish_video=False, read_numbers=False, **options)


async def scenario_sim(report, context):
    room = "interop-sim"
    small = viewer(context, "small", room)
    large = viewer(context, "large", room)
    browser, camera = await chromium_publisher(report, context, room, [small, large])
    sinks = await chrome_video_sinks(report, [small, large])
    t0 = time.monotonic()
    await check_active_layers(report, browser, camera)
    await content_preferences(report, small, camera, SMALL)
    await content_preferences(report, large, camera, LARGE)

    # Up to 20 s (layer switches wait for a keyframe; the downlink estimate
    # may have to grow for the top layer): small decodes the lowest layer
    # Chromium encodes, large the largest, at about those sizes.
    deadline = time.monotonic() + 20
    while True:
        encoding, layers = await encoding_layers(browser, 1.0)
        s, l = recent_size(sinks["small"]), recent_size(sinks["large"])
        lowest = min(encoding.values(), default=None, key=lambda size: size[0] * size[1])
        top = max(encoding.values(), default=None, key=lambda size: size[0] * size[1])
        settled = s == lowest and l == top and s is not None and l is not None and s[0] < l[0]
        if settled or time.monotonic() > deadline:
            break
    print(f"    Chromium encodes {describe_layers(layers)}")
    print(f"    small decodes {s} ({size_timeline(sinks['small'], t0)}); large decodes {l} "
          f"({size_timeline(sinks['large'], t0)})")
    report.check("small (renders 320x180) decodes the lowest layer Chromium encodes, about 320x180",
                 s is not None and s == lowest and s[0] <= 400, f"decodes {s}, lowest layer {lowest}")
    report.check("large (renders 1280x720) decodes the largest layer Chromium encodes, at least 640 wide",
                 l is not None and l == top and l[0] >= 640, f"decodes {l}, largest layer {top}")
    report.check("small's frames are smaller than large's", s and l and s[0] < l[0] and s[1] < l[1],
                 f"{s} vs {l}")

    # The operator's view (PROTOCOL.md 7): /Stats names the layer each
    # subscriber is forwarded, and that it is not switched off.
    stats = context.server.get_json(f"/v1/Rooms/{room}/Stats")
    forwarded = {}
    for row in stats.get("participants", []):
        for track in row.get("subscribed_tracks", []):
            if track.get("track_sid") == camera:
                forwarded[row.get("identity")] = (track.get("layer") or {}).get("rid"), track.get("switched_off")
    report.check("/Stats: small is forwarded layer q, large layer f, neither switched off",
                 forwarded.get("small") == ("q", False) and forwarded.get("large") == ("f", False), f"{forwarded}")

    # large renders small now: within 3 s it decodes what small decodes
    # (a frame no larger than small's), smoothly.
    before, target = recent_size(sinks["large"]), recent_size(sinks["small"])
    switched_at = time.monotonic()
    await content_preferences(report, large, camera, SMALL)

    def dropped():
        return next(((t, w, h) for t, w, h, _ in sinks["large"].frames_since(switched_at)
                     if (w, h) != before and w * h <= target[0] * target[1]), None)

    await wait_until(lambda: dropped() is not None, 3, 0.05)
    first = dropped()
    report.check("large -> 320x180: within 3 s its decoded size drops to small's (the lowest layer)",
                 first is not None and first[0] - switched_at <= 3,
                 f"{before} -> {first[1]}x{first[2]} after {first[0] - switched_at:.2f} s" if first else
                 f"still {recent_size(sinks['large'])} after 3 s (small decodes {target})")
    await asyncio.sleep(max(0.0, switched_at + 5 - time.monotonic()))
    print(f"    large's sizes: {size_timeline(sinks['large'], switched_at)}")
    report.check("large now decodes what small decodes (the lowest layer)",
                 recent_size(sinks["large"]) == recent_size(sinks["small"]),
                 f"large {recent_size(sinks['large'])}, small {recent_size(sinks['small'])}")
    check_smooth(report, "large, 1 s before to 5 s after the switch", sinks["large"], switched_at - 1,
                 switched_at + 5)
    check_smooth(report, "small, throughout", sinks["small"], sinks["small"].frames[0][0], time.monotonic())


async def scenario_sim_switchoff(report, context):
    room = "interop-sim-switchoff"
    manual = viewer(context, "manual", room)
    other = viewer(context, "other", room)
    browser, camera = await chromium_publisher(
        report, context, room, [manual, other],
        profiles={"manual": {"video": {"clientTrackSwitchOffControl": "manual"}}})
    sinks = await chrome_video_sinks(report, [manual, other])
    offers = len(manual.offers)

    start = len(manual.messages)
    off_at = time.monotonic()
    try:
        await manual.switch_off_track(camera)
        report.check("manual: switchOffTrack answered ok", True)
    except (ProtocolError, asyncio.TimeoutError) as error:
        report.check("manual: switchOffTrack answered ok [server: switchOffTrack]", False, str(error))
    try:
        event = await manual.wait_for(lambda m: m.get("type") == "trackSwitchedOff" and m.get("trackSid") == camera,
                                      5, start)
        report.check("manual is told trackSwitchedOff, reason disabled-by-subscriber",
                     event.get("reason") == "disabled-by-subscriber", json.dumps(event))
    except asyncio.TimeoutError:
        report.check("manual is told trackSwitchedOff, reason disabled-by-subscriber [server: trackSwitchedOff]",
                     False, "no trackSwitchedOff in 5 s")
    await asyncio.sleep(max(0.0, off_at + 4 - time.monotonic()))
    late = sinks["manual"].frames_since(off_at + 1.0)
    report.check("manual decodes no frame from 1 s after the switch-off", not late,
                 f"{len(late)} frame(s) from +1 s to +4 s")
    kept = [f for f in sinks["other"].frames_since(off_at + 1.0)]
    report.check("other (not switched off) keeps decoding", len(kept) >= 20, f"{len(kept)} frames from +1 s to +4 s")
    report.check("no new subscribeOffer for the switch-off (SDP left alone)", len(manual.offers) == offers,
                 f"{len(manual.offers) - offers} new offer(s)")

    start = len(manual.messages)
    on_at = time.monotonic()
    try:
        await manual.switch_on_track(camera)
        report.check("manual: switchOnTrack answered ok", True)
    except (ProtocolError, asyncio.TimeoutError) as error:
        report.check("manual: switchOnTrack answered ok [server: switchOnTrack]", False, str(error))
    resumed = await wait_until(lambda: len(sinks["manual"].frames_since(on_at)) > 0, 3, 0.05)
    first = sinks["manual"].frames_since(on_at)
    report.check("manual decodes frames again within 3 s of the switch-on", resumed,
                 f"first after {first[0][0] - on_at:.2f} s" if first else "none in 3 s")
    try:
        await manual.wait_for(lambda m: m.get("type") == "trackSwitchedOn" and m.get("trackSid") == camera, 5, start)
        report.check("manual is told trackSwitchedOn", True)
    except asyncio.TimeoutError:
        report.check("manual is told trackSwitchedOn [server: trackSwitchedOn]", False, "no trackSwitchedOn in 5 s")
    await asyncio.sleep(max(0.0, on_at + 4 - time.monotonic()))
    report.check("still no new subscribeOffer after the switch-on", len(manual.offers) == offers,
                 f"{len(manual.offers) - offers} new offer(s)")
    check_smooth(report, "manual, from 0.5 s after the first frame back", sinks["manual"],
                 first[0][0] + 0.5 if first else on_at, time.monotonic())


async def wait_publisher_layers(browser, camera, start, wanted, timeout):
    """The first `publisherLayers` for `camera` from event index `start` on
    whose active list satisfies `wanted`, and every one seen."""
    deadline = time.monotonic() + timeout
    while True:
        seen = [m for _, m in await browser.messages("publisherLayers", start) if m.get("trackSid") == camera]
        match = next((m for m in seen if wanted(m.get("active") or [])), None)
        if match or time.monotonic() > deadline:
            return match, seen
        await asyncio.sleep(0.3)


async def scenario_sim_layers(report, context):
    room = "interop-sim-layers"
    a = viewer(context, "a", room)
    b = viewer(context, "b", room)
    browser, camera = await chromium_publisher(report, context, room, [a, b])
    sinks = await chrome_video_sinks(report, [a, b])
    await check_active_layers(report, browser, camera)

    start = await browser.event_count()
    for p in (a, b):
        await content_preferences(report, p, camera, SMALL)
    paused, seen = await wait_publisher_layers(browser, camera, start, lambda active: "f" not in active, 10)
    report.check("both render 320x180: Chromium is told publisherLayers without 'f' [server: publisherLayers]",
                 paused is not None, f"active {paused['active']}{' (only q)' if paused['active'] == ['q'] else ''}"
                 if paused else f"publisherLayers seen: {[m.get('active') for m in seen]}")
    if paused:
        # The page sets active:false on the encodings not listed: Chromium
        # stops encoding them.
        await asyncio.sleep(1)
        encoding, layers = await encoding_layers(browser)
        report.check("the page pauses 'f': Chromium no longer encodes it", "f" not in encoding,
                     f"encoding {sorted(encoding)}; {describe_layers(layers)}; "
                     f"sender {await browser.evaluate('vroom.senderEncodings()')}")
    else:
        print("    ---- not run: the page pauses 'f' (no publisherLayers without it)")

    start = await browser.event_count()
    large_at = time.monotonic()
    await content_preferences(report, a, camera, LARGE)
    resumed, seen = await wait_publisher_layers(browser, camera, start, lambda active: "f" in active, 10)
    report.check("a renders 1280x720 again: a later publisherLayers lists 'f' [server: publisherLayers]",
                 resumed is not None, f"active {resumed['active']}" if resumed else
                 f"publisherLayers seen: {[m.get('active') for m in seen]}")
    if resumed:
        # Chromium restarts 'f' when its bandwidth estimate allows: up to 10 s.
        deadline = time.monotonic() + 10
        while True:
            encoding, layers = await encoding_layers(browser, 1.0)
            if "f" in encoding or time.monotonic() > deadline:
                break
        report.check("the page resumes 'f': Chromium encodes it again within 10 s", "f" in encoding,
                     describe_layers(layers))
    else:
        print("    ---- not run: the page resumes 'f' (no publisherLayers with it)")

    deadline = large_at + 10
    while True:
        encoding, layers = await encoding_layers(browser, 1.0)
        top = max(encoding.values(), default=None, key=lambda size: size[0] * size[1])
        size = recent_size(sinks["a"])
        if (size is not None and size == top and size[0] >= 640) or time.monotonic() > deadline:
            break
    report.check("a decodes the largest layer again within 10 s, at least 640 wide",
                 size is not None and size == top and size[0] >= 640,
                 f"decodes {size}, largest layer {top}; a's sizes {size_timeline(sinks['a'], large_at)}")
    report.check("b still decodes about 320x180", (recent_size(sinks["b"]) or (9999, 0))[0] <= 400,
                 f"{recent_size(sinks['b'])}")


async def scenario_sim_plain(report, context):
    room = "interop-sim-plain"
    sized = viewer(context, "sized", room)
    plain = viewer(context, "plain", room)
    browser, camera = await chromium_publisher(report, context, room, [sized, plain], simulcast=False)
    await content_preferences(report, sized, camera, SMALL)
    sinks = await chrome_video_sinks(report, [sized, plain], frames=60)

    # Both decode what Chromium encodes (it may lower its resolution under
    # CPU load): render dimensions cannot shrink a single stream.
    deadline = time.monotonic() + 10
    while True:
        encoding, layers = await encoding_layers(browser, 1.0)
        published = next(iter(encoding.values()), None)
        sizes = {name: recent_size(sink) for name, sink in sinks.items()}
        if (published and all(s == published for s in sizes.values())) or time.monotonic() > deadline:
            break
    report.check("Chromium sends one stream", len(layers) == 1, describe_layers(layers))
    for name in ("plain", "sized"):
        report.check(f"{name}{' (renders 320x180)' if name == 'sized' else ''} decodes the published size",
                     published is not None and sizes[name] == published,
                     f"decodes {sizes[name]}, Chromium encodes {published}; sizes "
                     f"{size_timeline(sinks[name], sinks[name].frames[0][0])}")
    # The last 5 s, once both streams have run for 6 s.
    first = max(sink.frames[0][0] for sink in sinks.values())
    await asyncio.sleep(max(0.0, first + 6 - time.monotonic()))
    now = time.monotonic()
    for name, sink in sinks.items():
        check_smooth(report, f"{name}, the last 5 s", sink, now - 5, now)


# -- downlink bandwidth estimation and allocation (issue 13, PROTOCOL.md 7) ----
#
# Subscribers whose downlink the server must estimate send transport-cc
# feedback: they are Chromium (aiortc sends neither transport-cc nor REMB).
# Every participant is a page of ONE shared headless Chromium (SharedChromium:
# one browser, GPU and network process for all; VROOM_BWE_CHROMIUM=per-page
# starts one Chromium per participant instead, to compare). A subscriber
# page joins with ?publish=0 (no camera, publishes nothing) and
# ?contentPreferences=0 (no render-dimension cap on its layer). Each
# subscriber's downlink is the server's datagrams to its PeerConnection's
# local UDP port (the selected candidate pair's local candidate in
# getStats), shaped with htb (scripts/shape.sh through shaping.py) in
# run.sh's loopback-only namespace. The pages sample getStats() every
# 100 ms (inbound video: framesDecoded, packetsReceived, packetsLost,
# freezes; the publisher's outbound-rtp pliCount / nackCount); /Stats is
# read every second (available_outgoing_bitrate; each subscribed track's
# layer, switched_off, switch_off_reason).

BWE_SAMPLER = """(() => {
  if (window.bwe) return true;
  const bwe = window.bwe = { samples: [], ticks: 0 };
  const tick = async () => {
    bwe.ticks += 1;
    const row = { t: Date.now(), video: {}, port: null, protocol: null, out: null };
    if (vroom.pcSub) {
      const report = await vroom.pcSub.getStats();
      let pair = null;
      for (const s of report.values()) {
        if (s.type === "inbound-rtp" && s.kind === "video") {
          row.t = s.timestamp;
          row.video[s.mid] = { frames: s.framesDecoded || 0, received: s.packetsReceived || 0,
            lost: s.packetsLost || 0, freezes: s.freezeCount || 0, frozen: s.totalFreezesDuration || 0,
            width: s.frameWidth || 0, height: s.frameHeight || 0, keyframes: s.keyFramesDecoded || 0 };
        }
        if (s.type === "transport" && s.selectedCandidatePairId) pair = report.get(s.selectedCandidatePairId);
      }
      const local = pair && report.get(pair.localCandidateId);
      if (local) { row.port = local.port; row.protocol = local.protocol; }
    }
    if (vroom.pcPub && bwe.ticks % 5 === 0) {
      row.out = {};
      for (const s of (await vroom.pcPub.getStats()).values()) {
        if (s.type === "outbound-rtp" && s.kind === "video") row.out[s.rid || "-"] = { pli: s.pliCount || 0,
          nack: s.nackCount || 0, frames: s.framesEncoded || 0, width: s.frameWidth || 0, height: s.frameHeight || 0,
          bytes: s.bytesSent || 0 };
      }
    }
    bwe.samples.push(row);
  };
  setInterval(tick, 100);
  return true;
})()"""

RID_ORDER = {"q": 0, "h": 1, "f": 2}
PRIORITY_ORDER = {"low": 0, "standard": 1, "high": 2}


class BwePage:
    """A demo page in the BWE scenarios and what its sampler recorded: rows
    {t (epoch ms), video {mid: numbers}, port, out {rid: numbers}}."""

    def __init__(self, name, browser):
        self.name = name
        self.browser = browser
        self.rows = []
        self.port = None
        self.protocol = None
        self.shaped_at = self.shaped_port = None

    async def drain(self):
        self.rows += await self.browser.evaluate("window.bwe ? window.bwe.samples.splice(0) : []")
        pairs = [(r["port"], r.get("protocol")) for r in self.rows[-20:] if r.get("port")]
        if pairs:
            self.port, self.protocol = pairs[-1]

    def series(self, mid, key, start=0.0, end=float("inf")):
        """[(time.time() seconds, value)] of one inbound video number."""
        return [(r["t"] / 1000, r["video"][mid][key]) for r in self.rows
                if mid in r["video"] and start <= r["t"] / 1000 <= end]

    def mids(self):
        return sorted({mid for r in self.rows for mid in r["video"]})

    def delta(self, mid, key, start, end):
        values = self.series(mid, key, start, end)
        return values[-1][1] - values[0][1] if len(values) >= 2 else None

    def frame_gap(self, mid, start, end):
        """(largest time without a newly decoded frame in [start, end], when),
        from framesDecoded sampled every ~100 ms (the window's edges count)."""
        values = self.series(mid, "frames", start - 0.5, end)
        times = [start] + [t for (t, f), (_, before) in zip(values[1:], values) if f > before and t >= start] + [end]
        return max((b - a, a - start) for a, b in zip(times, times[1:]))

    def loss(self, mid, start, end):
        lost, received = self.delta(mid, "lost", start, end), self.delta(mid, "received", start, end)
        if lost is None or received is None or lost + received <= 0:
            return None, lost, received
        return lost / (lost + received), lost, received

    def publisher_counts(self, start, end):
        """{rid: (PLIs, NACKs)} received by the publisher between two times."""
        rows = [r for r in self.rows if r.get("out") and start <= r["t"] / 1000 <= end]
        if len(rows) < 2:
            return {}
        first, last = rows[0]["out"], rows[-1]["out"]
        return {rid: (last[rid]["pli"] - first[rid]["pli"], last[rid]["nack"] - first[rid]["nack"])
                for rid in last if rid in first}

    def publisher_rates(self, start, end):
        """{rid: bits per second the publisher sent} between two times
        (outbound-rtp bytesSent deltas)."""
        rows = [r for r in self.rows if r.get("out") and start <= r["t"] / 1000 <= end]
        if len(rows) < 2 or rows[-1]["t"] <= rows[0]["t"]:
            return {}
        first, last, seconds = rows[0]["out"], rows[-1]["out"], (rows[-1]["t"] - rows[0]["t"]) / 1000
        return {rid: (last[rid].get("bytes", 0) - first[rid].get("bytes", 0)) * 8 / seconds
                for rid in last if rid in first}


class BweRoom:
    """The Chromium pages of one BWE scenario, the shaper, the /Stats and
    page samplers. `stats` rows: (time.time(), {identity: {"estimate": bps or
    None, "tracks": {track SID: (rid, temporal, switched_off, reason)}}})."""

    def __init__(self, report, context, room):
        self.report = report
        self.context = context
        self.room = room
        self.per_page = os.environ.get("VROOM_BWE_CHROMIUM") == "per-page"
        self.shared = None
        self.pages = {}
        self.browsers = []
        self.stats = []
        self.tasks = []
        self.shaper = None
        self.started = time.monotonic()
        self.cpu_start = None

    async def start(self):
        from chromium import SharedChromium
        from shaping import LinkShaper, can_shape
        reason = can_shape()
        if reason:
            self.report.stop("shaping", f"cannot shape here: {reason}")
        self.shaper = LinkShaper()
        self.context.cleanup.append(self.close)
        if not self.per_page:
            self.shared = SharedChromium(self.context.chromium,
                                         os.path.join(self.context.log_dir, f"chromium-{self.room}.log"))
            await self.shared.start()
        self.tasks.append(asyncio.ensure_future(self._poll()))
        print(f"    Chromium: {'one per participant' if self.per_page else 'one process, one page per participant'}")
        return self

    async def open(self, identity, query):
        from chromium import DemoPageBrowser
        browser = DemoPageBrowser(self.context.server.url, make_token(identity, self.room), self.room,
                                  binary=self.context.chromium, query=query, current_page=True,
                                  chromium=self.shared,
                                  log_path=os.path.join(self.context.log_dir, f"chromium-{self.room}-{identity}.log"))
        self.pages[identity] = None
        self.browsers.append(browser)
        await browser.__aenter__()
        await browser.evaluate(BWE_SAMPLER)
        page = self.pages[identity] = BwePage(identity, browser)
        return page

    async def subscriber(self, identity, profile=None):
        query = {"publish": "0", "contentPreferences": "0"}
        if profile is not None:
            query["bandwidthProfile"] = json.dumps(profile)
        page = await self.open(identity, query)
        print(f"    {identity}: demo page served by {page.browser.served_by}")
        return page

    def pids(self):
        if self.shared:
            return self.shared.pids()
        from chromium import descendants
        return [pid for browser in self.browsers if browser.process
                for pid in [browser.process.pid] + descendants(browser.process.pid)]

    async def _poll(self):
        while True:
            try:
                stats = await asyncio.to_thread(self.context.server.get_json, f"/v1/Rooms/{self.room}/Stats")
                row = {}
                for p in stats.get("participants", []):
                    tracks = {}
                    for t in p.get("subscribed_tracks", []):
                        if t.get("kind") == "video":
                            layer = t.get("layer") or {}
                            tracks[t["track_sid"]] = (layer.get("rid"), layer.get("temporal_layer"),
                                                      t.get("switched_off"), t.get("switch_off_reason"))
                    row[p["identity"]] = {"estimate": p.get("available_outgoing_bitrate"), "tracks": tracks}
                self.stats.append((time.time(), row))
                for page in list(self.pages.values()):
                    if page:
                        await page.drain()
            except urllib.error.HTTPError as error:
                if error.code != 404:  # 404: the room does not exist before its first join
                    print(f"    (poll: {error!r})", flush=True)
            except Exception as error:  # a page closing at the end, a slow server: keep polling
                print(f"    (poll: {error!r})", flush=True)
            await asyncio.sleep(1.0)

    async def close(self):
        """The pollers, then the pages, Chromium and the shaping."""
        for task in self.tasks:
            task.cancel()
        self.tasks = []
        for browser in reversed(self.browsers):
            await browser.close()
        if self.shared:
            await self.shared.close()
        await asyncio.to_thread(self.shaper.clear)

    async def connected(self, pages, timeout=30):
        """Waits until each subscriber page's subscriber connection is up and
        its sampler knows the local UDP port, then up to 10 s more until it
        decodes (the allocator may hold every track off at first: the
        scenario's own checks show it; only no connection stops here)."""
        deadline = time.monotonic() + timeout
        decoding = lambda p: bool(p.rows) and any(v["frames"] > 0 for v in p.rows[-1]["video"].values())
        while True:
            for page in pages:
                await page.drain()
            states = [await p.browser.evaluate("vroom.pcSub && vroom.pcSub.connectionState") for p in pages]
            # UDP: under load Chromium may select a TCP pair first (ICE-TCP)
            # and move to UDP a few seconds later; the shaping is on UDP.
            ready = [p for p, state in zip(pages, states) if p.port and p.protocol == "udp" and state == "connected"]
            if (len(ready) == len(pages) and all(decoding(p) for p in pages)) or time.monotonic() > deadline:
                break
            if len(ready) == len(pages):
                deadline = min(deadline, time.monotonic() + 10)
            await asyncio.sleep(0.5)
        detail = ", ".join(f"{p.name}: {state}, {(p.protocol or '?').upper()} {p.port}, {len(p.rows[-1]['video']) if p.rows else 0} video(s), "
                           f"{'decoding' if decoding(p) else 'no frame decoded yet'}" for p, state in zip(pages, states))
        if len(ready) < len(pages):
            self.report.stop("media: every subscriber page connects", detail)
        self.report.check("every subscriber page connected (its local UDP port from getStats' selected candidate "
                          "pair)", True, detail)
        server_ports = set(self.context.server.rtc_ports)
        self.report.check("each subscriber's port is its own, not the server's",
                          len({p.port for p in pages}) == len(pages) and not ({p.port for p in pages} & server_ports),
                          f"{sorted(p.port for p in pages)} vs server {sorted(server_ports)}")

    def shape(self, page, kbit):
        self.shaper.add(page.port, kbit)
        page.shaped_at, page.shaped_port = time.time(), page.port
        print(f"    +{time.monotonic() - self.started:.1f}s {page.name}: UDP {page.port} shaped to {kbit} kbit/s")

    def check_pairs(self, pages, end):
        """The shaping holds only while each shaped page's media comes over
        the UDP port that was shaped: a check that its selected candidate
        pair stayed that one from the shaping to `end` (an ICE switch to
        another pair, ICE-TCP say, would carry media past the bottleneck)."""
        for page in pages:
            seen = sorted({(r.get("protocol"), r["port"]) for r in page.rows
                           if r.get("port") and r["t"] / 1000 <= end and r["t"] / 1000 >= page.shaped_at})
            self.report.check(f"{page.name}: the shaped pair (UDP {page.shaped_port}) stays selected while shaped",
                              seen == [("udp", page.shaped_port)],
                              ", ".join(f"{(proto or '?').upper()} {port}" for proto, port in seen) or "no samples")

    def layer(self, identity, track, row):
        return ((row.get(identity) or {}).get("tracks") or {}).get(track)

    def samples(self, identity, track, start, end=float("inf"), temporal=False):
        """[(time, rid, switched_off, reason, estimate)] of /Stats between two
        times; with `temporal`, the rid is 'rid/temporal' (e.g. 'f/1')."""
        out = []
        for t, row in self.stats:
            if start <= t <= end:
                state = self.layer(identity, track, row) or (None, None, None, None)
                rid = f"{state[0]}/{state[1]}" if temporal and state[0] is not None else state[0]
                out.append((t, rid, state[2], state[3], (row.get(identity) or {}).get("estimate")))
        return out

    def table(self, identities, track, t0, end, zero=None):
        """One line a second from `t0` to `end`: each subscriber's estimate
        and layer, times relative to `zero` (default t0)."""
        zero = t0 if zero is None else zero
        print(f"    per second (estimate = available_outgoing_bitrate, layer = rid/temporal of {track}):")
        print("      t      " + "".join(f"{name:>22}" for name in identities))
        for t, row in self.stats:
            if t0 - 1 <= t <= end:
                cells = []
                for name in identities:
                    estimate = (row.get(name) or {}).get("estimate")
                    state = self.layer(name, track, row)
                    layer = ("off" if state and state[2] else f"{state[0]}/{state[1]}") if state else "-"
                    cells.append(f"{(f'{estimate / 1000:.0f}k' if estimate is not None else 'null'):>12} {layer:>9}")
                print(f"      {t - zero:+6.1f}s" + "".join(cells))

    async def cpu_figures(self, label):
        from chromium import cpu_seconds
        pids = self.pids()
        return f"{label}: {len(pids)} Chromium processes, {cpu_seconds(pids):.0f} CPU-s so far, " \
               f"{sum(rss_kib(pid) for pid in pids) / 1024:.0f} MiB RSS"


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
    except OSError:
        return 0


async def bwe_publisher(report, room):
    """The demo page as "cam": mic + camera, the camera as 3-layer simulcast
    (q/h/f from 1280x720, as in `sim`). Returns (page, camera SID)."""
    page = await room.open("cam", {})
    browser = page.browser
    print(f"    cam: demo page served by {browser.served_by}")
    state = {}
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = await browser.state()
        if "camera" in (state.get("published") or {}) and state.get("pub") == "connected":
            break
        await asyncio.sleep(0.3)
    published = state.get("published") or {}
    if "camera" not in published or state.get("pub") != "connected":
        report.stop("Chromium publisher: join, publish, connect", f"{state.get('pub')}, errors {state.get('errors')}")
    camera = published["camera"]
    sdp = await browser.evaluate("vroom.publishSdp")
    offered = simulcast_rids(section_of(sdp["offer"], camera["mid"]), "send")
    accepted = simulcast_rids(section_of(sdp["answer"], camera["mid"]), "recv")
    report.check("cam publishes the camera as simulcast q;h;f and the answer accepts it",
                 offered == LAYER_RIDS and accepted is not None and sorted(accepted) == sorted(LAYER_RIDS),
                 f"offer {offered}, answer {accepted}; camera {camera['sid']}")
    return page, camera["sid"]


def settled_at(samples, acceptable):
    """The time of the first /Stats sample from which every later one is in
    `acceptable` (None: the last one is not)."""
    at = None
    for t, rid, off, _, _ in samples:
        if rid in acceptable and not off:
            at = at or t
        else:
            at = None
    return at


def describe_layers_over(samples, t0):
    """'+0.0s q, +3.1s h, ...': when the forwarded layer changed."""
    out, last = [], object()
    for t, rid, off, reason, _ in samples:
        now = f"off ({reason})" if off else rid
        if now != last:
            out.append(f"{t - t0:+.1f}s {now}")
            last = now
    return ", ".join(out) or "no sample"


def median(values):
    values = sorted(v for v in values if v is not None)
    return values[len(values) // 2] if values else None


async def scenario_bwe_3(report, context):
    room = await BweRoom(report, context, "interop-bwe-3").start()
    cam, camera = await bwe_publisher(report, room)
    links = {"s250": 250, "s800": 800, "sfull": None}
    # Layers as rid/temporal. s800 gets less than the top (f with all three
    # temporal layers): a lower spatial layer, or f at a lower frame rate
    # (the allocator's ladder goes by cost: 7.5 fps of 720p may cost less
    # than 30 fps of 360p, and h may be paused when no one needs it).
    every = {f"{rid}/{tl}" for rid in ("q", "h", "f") for tl in range(3)}
    acceptable = {"s250": {f"q/{tl}" for tl in range(3)}, "s800": every - {"f/2"}, "sfull": {"f/2"}}
    names = {"s250": "q", "s800": "less than f/2 (q, h, or f at 7.5-15 fps)", "sfull": "f/2"}
    subscribers = [await room.subscriber(name) for name in links]
    await room.connected(subscribers)
    for page in subscribers:
        if links[page.name]:
            await asyncio.to_thread(room.shape, page, links[page.name])
    shaped_at = time.time()
    cpu_before = await room.cpu_figures("at shaping")
    # Chromium's own uplink estimate takes up to ~45 s to let it encode f
    # (check_active_layers); the settling clock starts once it encodes every
    # layer the server names active.
    await check_active_layers(report, cam.browser, camera, timeout=60)
    t0 = max(shaped_at, time.time())
    print(f"    t0: {t0 - shaped_at:.1f} s after the shaping (Chromium encodes its layers)")
    window = (t0 + 10, t0 + 25)
    await asyncio.sleep(window[1] + 1.5 - time.time())
    for page in [cam, *subscribers]:
        await page.drain()
    room.table(list(links), camera, shaped_at, window[1])
    room.check_pairs([page for page in subscribers if links[page.name]], window[1])
    print(f"    t0 is at {t0 - shaped_at:+.1f}s of this table; the measured window from {window[0] - shaped_at:+.1f}s "
          f"to {window[1] - shaped_at:+.1f}s")

    # What the 800 kbit/s link carries depends on what Chromium encodes: on
    # a loaded machine its f may come out well under the link (CI measured
    # f/2 with 0% loss there). f/2 is then the right answer for s800 too;
    # it must stay below f/2 only while f/2 would not fit (f's rate plus
    # audio and packet overhead, ~60 kbit/s, above the link).
    rates = cam.publisher_rates(t0, window[1])
    f_rate = rates.get("f")
    if f_rate is not None and f_rate + 60_000 <= links["s800"] * 1000:
        acceptable["s800"] = every
        names["s800"] = f"any layer (f is {f_rate / 1000:.0f} kbit/s, it fits the link)"
    print(f"    publisher rates over the window: " +
          ", ".join(f"{rid} {bps / 1000:.0f}k" for rid, bps in sorted(rates.items())))
    for page in subscribers:
        samples = room.samples(page.name, camera, t0, window[1], temporal=True)
        link = f"{links[page.name]} kbit/s" if links[page.name] else "unlimited"
        if page.name == "s800":
            # The estimate on an 800 kbit/s htb link overshoots it (median
            # ~900k in CI: htb's bucket lets a probe through faster than the
            # rate), and a probe may lift s800 to f/2 for a second before
            # the estimate falls back (docs/README.md, issue 13's notes).
            # The loss and gap checks below hold it to what the user sees;
            # here it must be below f/2 for 75% of the measured window:
            # excursions of a few seconds after a probe (1-2 s in CI), never
            # a settled f/2.
            tail = [row for row in samples if row[0] >= window[0]]
            below = [row[1] in acceptable["s800"] and not row[2] for row in tail]
            stint = longest = 0
            for ok in below:
                stint = 0 if ok else stint + 1
                longest = max(longest, stint)
            report.check(f"s800 ({link}) is on {names['s800']} for 75% of the measured window "
                         f"(a probe's overshoot may lift it for a second or two)",
                         len(tail) >= 10 and sum(below) >= 0.75 * len(tail),
                         f"{sum(below)} of {len(tail)} samples, longest stint above {longest} sample(s); "
                         + describe_layers_over(samples, t0))
            continue
        at = settled_at(samples, acceptable[page.name])
        report.check(f"{page.name} ({link}) settles on {names[page.name]} within 10 s and stays there",
                     at is not None and at - t0 <= 10,
                     (f"from +{at - t0:.1f} s; " if at else "never; ") + describe_layers_over(samples, t0))
    full = room.samples("sfull", camera, t0, window[1])
    first_f = next((t for t, rid, off, _, _ in full if rid == "f" and not off), None)
    downs = [t for t, rid, off, _, _ in full if first_f and t > first_f and (off or rid != "f")]
    report.check("sfull (unlimited) keeps f from when it first gets it (no sample below f)",
                 first_f is not None and not downs,
                 f"first f at +{first_f - t0:.1f} s, {len(downs)} sample(s) below" if first_f else "never f")
    estimates = {name: median(e for *_, e in room.samples(name, camera, *window)) for name in links}
    report.check("the estimates order as the links: s250 < s800 < sfull (medians over the window)",
                 None not in estimates.values() and estimates["s250"] < estimates["s800"] < estimates["sfull"],
                 ", ".join(f"{n} {e / 1000:.0f}k" if e is not None else f"{n} null" for n, e in estimates.items()))

    for page in subscribers:
        mid = page.mids()[0] if page.mids() else None
        if mid is None:
            report.check(f"{page.name}: inbound video in getStats", False, "none")
            continue
        loss, lost, received = page.loss(mid, *window)
        report.check(f"{page.name}: video loss below 2% over the 15 s window (getStats packetsLost / "
                     f"(lost + received) deltas)", loss is not None and loss < 0.02,
                     f"{loss:.2%} ({lost} lost, {received} received)" if loss is not None else
                     f"no samples (lost {lost}, received {received})")
        gap, at = page.frame_gap(mid, *window)
        freezes, frozen = page.delta(mid, "freezes", *window), page.delta(mid, "frozen", *window)
        frames = page.delta(mid, "frames", *window)
        report.check(f"{page.name}: no gap over 1 s in decoded frames (framesDecoded every ~100 ms)", gap <= 1.0,
                     f"largest {gap:.2f} s at +{at:.1f} s; {frames} frames in 15 s; Chrome's freezeCount "
                     f"+{freezes}, totalFreezesDuration +{frozen:.2f} s" if frozen is not None else f"{gap:.2f} s")
    counts = cam.publisher_counts(*window)
    plis, nacks = sum(p for p, _ in counts.values()), sum(n for _, n in counts.values())
    report.check("the publisher gets under 1 PLI per 5 s over the window (outbound-rtp pliCount, all layers: < 3 "
                 "in 15 s)", counts and plis < 3, f"{plis} PLI; per rid {counts}")
    report.check("the publisher gets under 1 NACK a second over the window (nackCount: < 15 in 15 s)",
                 counts and nacks < 15, f"{nacks} NACK")
    named = [m.get("active") for _, m in await cam.browser.messages("publisherLayers") if m.get("trackSid") == camera]
    encoding, layers = await encoding_layers(cam.browser, 1.0)
    print(f"    publisherLayers to cam: {named}; Chromium encodes {describe_layers(layers)}")
    print(f"    {cpu_before}; {await room.cpu_figures('at the end')}")


async def scenario_bwe_cut(report, context):
    room = await BweRoom(report, context, "interop-bwe-cut").start()
    cam, camera = await bwe_publisher(report, room)
    viewer_page = await room.subscriber("viewer")
    await room.connected([viewer_page])
    await check_active_layers(report, cam.browser, camera, timeout=60)
    # Unshaped: it gets the top layer first (the estimate has to grow).
    start = time.time() - 1.5  # the latest /Stats row counts
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        current = room.samples("viewer", camera, time.time() - 1.5)
        if current and current[-1][1] == "f" and not current[-1][2]:
            break
        await asyncio.sleep(0.5)
    # The top layer needs Chromium's own uplink estimate to let it encode
    # f at full rate; when it does not within 30 s, h is the layer to leave
    # and come back to (said in the detail), below h there is nothing to test.
    top = room.samples("viewer", camera, start)
    before = top[-1][1] if top and not top[-1][2] else None
    encoding, layers = await encoding_layers(cam.browser, 1.0)
    if before not in ("f", "h"):
        report.stop("unshaped, viewer gets f or at least h (within 30 s)",
                    f"{describe_layers_over(top, start)}; Chromium encodes {describe_layers(layers)}")
    report.check("unshaped, viewer gets the top layer Chromium encodes (f; h when Chromium does not send f)",
                 before == "f" or "f" not in encoding,
                 f"{describe_layers_over(top, start)}; Chromium encodes {describe_layers(layers)}")
    await asyncio.sleep(3)

    cut = time.time()
    await asyncio.to_thread(room.shape, viewer_page, 250)
    await asyncio.sleep(12)
    restored = time.time()
    await asyncio.to_thread(room.shaper.clear)
    print(f"    +{time.monotonic() - room.started:.1f}s viewer's link restored (shaping removed)")
    await asyncio.sleep(16)
    await viewer_page.drain()
    room.table(["viewer"], camera, cut - 3, time.time(), zero=cut)
    room.check_pairs([viewer_page], restored)
    print(f"    the cut at +0.0 s, the restore at +{restored - cut:.1f} s")
    after_cut = room.samples("viewer", camera, cut, restored)
    down = next((t for t, rid, off, _, _ in after_cut if off or RID_ORDER.get(rid, 9) < RID_ORDER[before]), None)
    report.check(f"cut to 250 kbit/s: viewer moves below {before} within 3 s (/Stats layer)",
                 down is not None and down - cut <= 3,
                 (f"at +{down - cut:.1f} s; " if down else "not before the restore; ") +
                 describe_layers_over(after_cut, cut))
    mid = viewer_page.mids()[0] if viewer_page.mids() else None
    gap, at = viewer_page.frame_gap(mid, cut, restored) if mid else (99, 0)
    report.check("no gap over 2 s in decoded frames while cut (framesDecoded every ~100 ms)", gap <= 2.0,
                 f"largest {gap:.2f} s at +{at:.1f} s after the cut")
    loss, lost, received = viewer_page.loss(mid, cut, restored) if mid else (None, None, None)
    print(f"    while cut: loss {f'{loss:.1%}' if loss is not None else '?'} ({lost} lost, {received} received)")
    after_restore = room.samples("viewer", camera, restored)
    up = next((t for t, rid, off, _, _ in after_restore if rid == before and not off), None)
    report.check(f"restored: viewer, down while cut, is back on {before} within 15 s",
                 down is not None and up is not None and up - restored <= 15,
                 ("it never moved down; " if down is None else "") +
                 (f"{before} at +{up - restored:.1f} s; " if up else "not in 16 s; ") +
                 describe_layers_over(after_restore, restored))
    gap, at = viewer_page.frame_gap(mid, restored, time.time() - 1) if mid else (99, 0)
    print(f"    after the restore: largest decoded-frame gap {gap:.2f} s at +{at:.1f} s")


GRID_PUBLISHERS = [("g-high", "high"), ("g-std1", "standard"), ("g-std2", "standard"), ("g-std3", "standard"),
                   ("g-low1", "low"), ("g-low2", "low")]


async def scenario_bwe_grid(report, context):
    room = await BweRoom(report, context, "interop-bwe-grid").start()
    # Noisy 320x240 video: each encoder spends its target bitrate (plain
    # numbered blocks need a few kbit/s, all six fit in 600 kbit/s). The
    # target is pinned at 200 kbit/s (aiortc's default 500 kbit/s made one
    # track alone nearly fill the 600 kbit/s link, so not even the high one
    # could stay on): six need about 1.3 Mbit/s, two fit.
    import aiortc.codecs.vpx as vpx
    saved = (vpx.DEFAULT_BITRATE, vpx.MIN_BITRATE, vpx.MAX_BITRATE)
    vpx.DEFAULT_BITRATE = vpx.MIN_BITRATE = vpx.MAX_BITRATE = 200_000

    async def restore_bitrates():
        vpx.DEFAULT_BITRATE, vpx.MIN_BITRATE, vpx.MAX_BITRATE = saved
    context.cleanup.append(restore_bitrates)
    publishers = [Participant(context.server.url, name, room.room, log=context.log, publish_audio=False,
                              video_priority=priority, video_noise=True) for name, priority in GRID_PUBLISHERS]
    context.cleanup.extend(p.close for p in publishers)
    await join_all(report, publishers)
    await publish_all(report, publishers)
    await wait_for_media_path(report, publishers)
    priority = {p.published["camera"]["sid"]: dict(GRID_PUBLISHERS)[p.identity] for p in publishers}
    names = {p.published["camera"]["sid"]: p.identity for p in publishers}
    page = await room.subscriber("grid", {"video": {"mode": "grid"}})
    await room.connected([page])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(page.mids()) < len(publishers):
        await page.drain()
        await asyncio.sleep(0.5)
    report.check("grid decodes all 6 videos before the shaping", len(page.mids()) == len(publishers),
                 f"{len(page.mids())} inbound videos")
    remote = await page.browser.evaluate("vroom.remote")
    mid_of = {info["trackSid"]: mid for mid, info in remote.items() if info.get("kind") == "video"}
    # Before the shaping the link is wide: every track on (up to 15 s).
    before = time.time()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if room.stats and room.stats[-1][0] > before and \
                not any((room.layer("grid", sid, room.stats[-1][1]) or (0, 0, True))[2] for sid in priority):
            break
        await asyncio.sleep(0.5)
    last = room.stats[-1][1] if room.stats else {}
    report.check("before the shaping (unshaped link) all six are on (/Stats, within 15 s)",
                 room.stats and room.stats[-1][0] > before and
                 not any((room.layer("grid", sid, last) or (0, 0, True))[2] for sid in priority),
                 f"estimate {(last.get('grid') or {}).get('estimate')}; off: "
                 f"{sorted(names[sid] for sid in priority if (room.layer('grid', sid, last) or (0, 0, True))[2])}")
    # The offered load: what the server receives of each video.
    await asyncio.sleep(2)
    published = {t["track_sid"]: t.get("bitrate_bps") or 0
                 for p in context.server.get_json(f"/v1/Rooms/{room.room}/Stats").get("participants", [])
                 for t in p.get("published_tracks", []) if t.get("kind") == "video"}
    report.check("the six videos together need more than the 600 kbit/s link (/Stats published bitrate_bps)",
                 sum(published.values()) > 900_000,
                 f"{sum(published.values()) / 1000:.0f} kbit/s: " +
                 ", ".join(f"{names.get(sid, sid)} {bps / 1000:.0f}k" for sid, bps in published.items()))

    await asyncio.to_thread(room.shape, page, 600)
    shaped = time.time()
    await asyncio.sleep(20)
    widened_events = await page.browser.event_count()
    await asyncio.to_thread(room.shaper.change, page.port, 5000)
    widened = time.time()
    print(f"    +{time.monotonic() - room.started:.1f}s grid's link widened to 5000 kbit/s")
    await asyncio.sleep(16)
    await page.drain()
    room.check_pairs([page], widened)

    def state_at(row, sid):
        return room.layer("grid", sid, row) or (None, None, None, None)

    print("    per second from the shaping (each track: layer or off; estimate):")
    order = sorted(priority, key=lambda sid: -PRIORITY_ORDER[priority[sid]])
    print("      t      estimate " + "".join(f"{names[sid]:>10}" for sid in order))
    for t, row in room.stats:
        if t >= shaped - 2:
            cells = "".join(f"{('off' if state_at(row, sid)[2] else (state_at(row, sid)[0] or 'on')):>10}"
                            for sid in order)
            estimate = (row.get("grid") or {}).get("estimate")
            print(f"      {t - shaped:+6.1f}s {(f'{estimate / 1000:.0f}k' if estimate is not None else 'null'):>8} {cells}")

    shaped_rows = [(t, row) for t, row in room.stats if shaped <= t <= widened]
    off_rows = [(t, {sid for sid in priority if state_at(row, sid)[2]}) for t, row in shaped_rows]
    # Only a track that was on just before the shaping counts as switched
    # off by it (all six off already proves nothing about the link).
    pre_off = next(({sid for sid in priority if state_at(row, sid)[2]} for t, row in reversed(room.stats)
                    if t < shaped), set(priority))
    first_off = next((t for t, off in off_rows if off - pre_off), None)
    reasons = {state_at(row, sid)[3] for _, row in shaped_rows for sid in priority if state_at(row, sid)[2]}
    report.check("at 600 kbit/s, tracks are switched off within 15 s, reason network-congestion (/Stats)",
                 first_off is not None and first_off - shaped <= 15 and reasons == {"network-congestion"},
                 f"first at +{first_off - shaped:.1f} s, reasons {reasons}" if first_off else
                 f"none went off (off already before the shaping: {sorted(names[s] for s in pre_off)})")
    inversions = [(round(t - shaped, 1), names[a], names[b]) for t, off in off_rows for a in off
                  for b in priority if b not in off and PRIORITY_ORDER[priority[b]] < PRIORITY_ORDER[priority[a]]]
    report.check("a track is switched off only once every lower-priority one is (low, then standard; high last)",
                 first_off is not None and not inversions,
                 f"{len(inversions)} inversion(s) {inversions[:4]}" if inversions else
                 f"off at the end of the shaped period: {sorted(names[s] for s in off_rows[-1][1])}"
                 if off_rows else "no sample")
    high = next(sid for sid, p in priority.items() if p == "high")
    # Not checked: that the high one stays on all the time at 600 kbit/s.
    # It is 320-460 of the 600 kbit/s, and each probe's queue cuts the
    # estimate to 0.87 of what is sent. Since session 30 a switch-off waits
    # 2 s while the deficit is within 25%, and switched-off tracks are not
    # repaired (their retransmissions had filled the link): on in 9 of the
    # last 9-10 samples in five of six runs, 6 of 9 in the sixth (before:
    # 2-10, and 0 frames in one CI run). What it does get is checked below:
    # it decodes in the last 5 s of the shaped period.
    late = [off for t, off in off_rows if t >= widened - 10]
    print(f"    at 600 kbit/s the high-priority track was on in {sum(1 for off in late if high not in off)} "
          f"of {len(late)} samples of the last 10 s")
    # Every switch message since the page joined: a track may have gone off
    # before the shaping.
    switches = sorted(await page.browser.messages("trackSwitchedOff") +
                      await page.browser.messages("trackSwitchedOn"), key=lambda im: im[0])
    told = {m.get("trackSid"): m.get("reason") for i, m in switches
            if m["type"] == "trackSwitchedOff" and i < widened_events}
    switched = {sid for _, off in off_rows for sid in off}
    report.check("the page is told trackSwitchedOff, reason network-congestion, for each track switched off",
                 switched and all(told.get(sid) == "network-congestion" for sid in switched),
                 ", ".join(f"{names.get(sid, sid)}: {reason}" for sid, reason in told.items()) or "no message")
    frames = page.delta(mid_of.get(high), "frames", widened - 5, widened) if high in mid_of else None
    report.check("the high-priority video keeps decoding at 600 kbit/s (last 5 s)", frames and frames >= 20,
                 f"{frames} frames")

    wide = [(t, {sid for sid in priority if state_at(row, sid)[2]}) for t, row in room.stats if t > widened]
    back = next((t for t, off in wide if not off), None)
    report.check("widened to 5000 kbit/s: every track is switched on again within 15 s (/Stats)",
                 back is not None and back - widened <= 15,
                 f"at +{back - widened:.1f} s" if back else f"still off {sorted(names[s] for s in wide[-1][1])}"
                 if wide else "no sample")
    latest = {m.get("trackSid"): m["type"] for _, m in switches}
    on = {sid for sid, kind in latest.items() if kind == "trackSwitchedOn"}
    report.check("the page's latest message for each of them is trackSwitchedOn", switched and switched <= on,
                 f"on {sorted(names.get(s, s) for s in on)}, were off {sorted(names[s] for s in switched)}")
    decoding = {names[sid]: page.delta(mid, "frames", time.time() - 4, time.time()) for sid, mid in mid_of.items()}
    report.check("the page decodes all 6 videos again (last 3 s)", all(f and f >= 10 for f in decoding.values()),
                 f"{decoding}")


# -- several nodes (issue 14, PROTOCOL.md 8) -----------------------------------

FAILOVER_DEADLINE = 10.0  # issue 14 item 8: decoded media again within 10 s of the kill


async def start_cluster(context, names, extra_args=()):
    """A private PostgreSQL and one `vroom-server` node per name on it (a
    fresh database), each on a free port it registers as its --node-url,
    with `extra_args`; all stopped by run_scenario after the participants
    have left."""
    pg = PostgreSQL(log_path=os.path.join(context.log_dir, "postgres.log"))
    context.processes.append(pg)
    await asyncio.to_thread(pg.start)
    nodes = []
    for name in names:
        port = free_port()
        node = VroomServer(context.server_binary, http_port=port,
                           extra_args=["--db", pg.url, "--node-url", f"http://127.0.0.1:{port}", *extra_args],
                           log_path=os.path.join(context.log_dir, f"vroom-server-node-{name}.log"))
        context.processes.append(node)
        await asyncio.to_thread(node.start)
        print(f"    node {name} on {node.url}, UDP {node.rtc_ports} (log {node.log_path})", flush=True)
        nodes.append(node)
    print(f"    PostgreSQL on 127.0.0.1:{pg.port}", flush=True)
    return nodes


def failed_stages(participant):
    """What went wrong for `participant`, its failed stages joined."""
    return "; ".join(f"{name}: {detail}" for name, (ok, detail) in participant.stages.items() if not ok)


def first_frame_above(sinks, number, since):
    """(monotonic time, number) of the first frame numbered above `number`
    that one of `sinks` decoded at or after `since`, or None."""
    frames = [(t, n) for sink in sinks for t, _, _, n in sink.frames if n is not None and n > number and t >= since]
    return min(frames) if frames else None


async def scenario_failover(report, context):
    """Issue 14 item 8 with aiortc: a node hosting two rooms dies (SIGKILL,
    nothing said to anyone). Its participants were given the other node as
    a fallback, as an app gives the SDK `fallbackURLs`: their sockets drop,
    they resume there within the reconnect window (PROTOCOL.md 3.6, 8; the
    first resume takes the room over from the database, so the SIDs stay),
    make new PeerConnections and publish again. The subscribers' new sinks
    must decode frame numbers above the last one before the kill (the
    publishers' numbers go on across the move) within 10 s of it."""
    node_a, node_b = await start_cluster(context, ["a", "b"])
    rooms = ["failover-1", "failover-2"]
    for room in rooms:
        created = await asyncio.to_thread(node_a.post_form, "/v1/Rooms", {"UniqueName": room})
        report.check(f"room {room} created through REST at node a", created.get("sid"), created.get("sid"))
    pairs = []
    for i, room in enumerate(rooms):
        publisher = Participant(node_a.url, f"pub{i + 1}", room, tone=TONES[i], log=context.log,
                                fallback_urls=[node_b.url])
        subscriber = Participant(node_a.url, f"sub{i + 1}", room, log=context.log, publish_audio=False,
                                 publish_video=False, fallback_urls=[node_b.url])
        pairs.append((publisher, subscriber))
    participants = [p for pair in pairs for p in pair]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    report.check("every participant joined at node a, no redirect (its rooms live there)",
                 all(p.redirects == 0 for p in participants),
                 ", ".join(f"{p.identity}: {p.redirects}" for p in participants if p.redirects))
    await publish_all(report, [publisher for publisher, _ in pairs])
    await wait_for_offers(report, [subscriber for _, subscriber in pairs],
                          {s.identity: {(p.identity, "mic"), (p.identity, "camera")} for p, s in pairs})
    await wait_for_media_path(report, participants)

    def video_of(publisher, subscriber):
        return subscriber.sinks_by_publisher().get((publisher.identity, "video"))

    decoding = await wait_until(lambda: all(video_of(p, s) and len(video_of(p, s).numbers()) >= 30
                                            for p, s in pairs), 20)
    if not decoding:
        report.stop("media: decoded frames before the kill",
                    ", ".join(f"{s.identity}: {len(video_of(p, s).numbers()) if video_of(p, s) else 0}"
                              for p, s in pairs))
    before = {s.identity: max(video_of(p, s).numbers()) for p, s in pairs}
    track_sids = {p.identity: {name: t["sid"] for name, t in p.published.items()} for p, _ in pairs}
    report.check("each subscriber decodes its publisher's numbered frames", True,
                 ", ".join(f"{name} up to frame {n}" for name, n in before.items()))

    killed = time.monotonic()
    node_a.kill()
    print(f"    node a killed (SIGKILL), pid {node_a.process.pid}", flush=True)
    node_b_signal = node_b.url.replace("http://", "ws://") + "/v1/signal"

    def back(s):
        """The first frame after the resume: frames the old connection still
        decoded after the kill do not count."""
        return first_frame_above(s.sinks, before[s.identity], s.resumes[0][0]) if s.resumes else None

    await wait_until(lambda: all(p.resumes for p in participants) and all(back(s) for _, s in pairs),
                     FAILOVER_DEADLINE + 5)
    for p in participants:
        if not p.resumes:
            report.check(f"{p.identity} resumed at node b", False,
                         failed_stages(p) or "no resume")
            continue
        at, joined = p.resumes[0]
        report.check(f"{p.identity} resumed at node b with the same room and participant SID",
                     p.signal_url == node_b_signal and joined.get("resumed") is True
                     and joined["room"]["sid"] == p.room_sid and joined["participant"]["sid"] == p.participant_sid,
                     f"+{at - killed:.2f} s at {p.signal_url}, room {joined['room']['sid']} "
                     f"(was {p.room_sid}), participant {joined['participant']['sid']} (was {p.participant_sid})")
    for publisher, _ in pairs:
        now = {name: t["sid"] for name, t in publisher.published.items()}
        report.check(f"{publisher.identity}'s tracks keep their SIDs on node b",
                     publisher.resumes and now == track_sids[publisher.identity],
                     f"{now} (were {track_sids[publisher.identity]})")
    for publisher, subscriber in pairs:
        frame = back(subscriber)
        report.check(f"{subscriber.identity} decodes {publisher.identity}'s frames again within "
                     f"{FAILOVER_DEADLINE:.0f} s of the kill",
                     frame is not None and frame[0] - killed <= FAILOVER_DEADLINE,
                     f"frame {frame[1]} (last before the kill {before[subscriber.identity]}) at "
                     f"+{frame[0] - killed:.2f} s" if frame else
                     f"nothing above frame {before[subscriber.identity]} in {FAILOVER_DEADLINE + 5:.0f} s")


# -- reaching the server from any network (issue 15, PROTOCOL.md 9) ----------

async def demo_page_state(browser, condition, timeout):
    """The demo page's `state()` once `condition` holds, or at `timeout`."""
    return await poll_value(browser.state, condition, timeout)


async def demo_page_joins(report, browser, who):
    """Checks that the demo page joined and published its mic and camera."""
    state = await demo_page_state(browser, lambda s: s["joined"] and {"mic", "camera"} <= set(s["published"] or {}), 20)
    report.check(f"{who} joined and published", state["joined"] and {"mic", "camera"} <= set(state["published"] or {}),
                 f"errors: {state.get('errors')}")
    return state


async def demo_page_decodes(report, browser, what, seconds=3):
    """Checks that every video the page receives decodes more frames over
    `seconds`, once it receives one (a subscription may still be on its
    way); the page's second stats (its paths, say)."""
    first = await poll_value(browser.stats, lambda stats: stats["inboundVideo"], 10)
    await asyncio.sleep(seconds)
    second = await browser.stats()
    frames = [(a["framesDecoded"], b["framesDecoded"]) for a, b in zip(first["inboundVideo"], second["inboundVideo"])]
    report.check(what, frames and all(b > a for a, b in frames), f"{frames}")
    return second


async def aiortc_decodes(report, participant, publisher, what):
    """Checks that the aiortc `participant` decodes 30 frames of `publisher`'s video."""
    def video():
        return participant.sinks_by_publisher().get((publisher, "video"))

    decoded = await wait_until(lambda: video() and len(video().frames) >= 30, 20)
    report.check(what, decoded, f"{len(video().frames) if video() else 0} frames")


async def demo_page_connects(report, browser, what):
    """Stops the scenario unless both of the page's connections connect."""
    state = await demo_page_state(browser, lambda s: s["pub"] == "connected" and s["sub"] == "connected", 30)
    if state["pub"] != "connected" or state["sub"] != "connected":
        candidates = await browser.evaluate("""(async () => {
          const out = [];
          for (const pc of [vroom.pcPub, vroom.pcSub]) {
            if (!pc) continue;
            for (const s of (await pc.getStats()).values()) {
              if (s.type === "local-candidate" || s.type === "remote-candidate") {
                out.push(`${s.type} ${s.candidateType} ${s.protocol} ${s.address || s.ip}`);
              }
            }
          }
          return out;
        })()""")
        report.stop(what, f"publisher {state['pub']}, subscriber {state['sub']}; candidates {candidates}")
    return state


async def scenario_turn(report, context):
    """Issue 15 item 5: coturn on loopback (started here, use-auth-secret),
    vroom-server handing out its credentials in `joined.iceServers`
    (--turn-url, --turn-secret), and two clients that may use only their
    TURN relay: Chromium (the demo page, `iceTransportPolicy: "relay"`) and
    a relay-only aiortc. Each decodes the other's media, and every
    connection's selected path starts at a relay candidate."""
    from chromium import DemoPageBrowser

    secret = uuid.uuid4().hex
    coturn = Coturn(secret, log_path=os.path.join(context.log_dir, "turnserver-turn.log"))
    context.processes.append(coturn)
    await asyncio.to_thread(coturn.start)
    server_log = os.path.join(context.log_dir, "vroom-server-turn.log")
    context.server = VroomServer(context.server_binary, log_path=server_log,
                                 extra_args=["--turn-url", coturn.url, "--turn-secret", secret])
    await asyncio.to_thread(context.server.start)
    print(f"    coturn on {coturn.url}; vroom-server on {context.server.url} (log {server_log})", flush=True)

    room = "interop-turn"
    aio = Participant(context.server.url, "aiortc", room, tone=TONES[1], log=context.log, read_numbers=False,
                      ice_transport_policy="relay")
    context.cleanup.append(aio.close)
    await join_all(report, [aio])
    report.check("joined carries coturn with a credential",
                 any(coturn.url in (s.get("urls") if isinstance(s.get("urls"), list) else [s.get("urls")])
                     and s.get("username") and s.get("credential") for s in aio.ice_servers),
                 json.dumps(aio.ice_servers)[:200])
    await publish_all(report, [aio])
    browser = DemoPageBrowser(context.server.url, make_token("chrome", room), room, binary=context.chromium,
                              log_path=os.path.join(context.log_dir, "chromium-turn.log"),
                              query={"iceTransportPolicy": "relay"}, current_page=True)
    context.cleanup.append(browser.close)
    await browser.__aenter__()
    print(f"    demo page served by {browser.served_by}", flush=True)

    state = await demo_page_joins(report, browser, "Chromium")
    await wait_for_offers(report, [aio], {"aiortc": {("chrome", "mic"), ("chrome", "camera")}})
    await wait_for_media_path(report, [aio])
    await demo_page_connects(report, browser, "Chromium's connections through the relay")

    await aiortc_decodes(report, aio, "chrome", "aiortc decodes Chromium's video (30 frames)")
    second = await demo_page_decodes(report, browser, "Chromium decodes aiortc's video")
    paths = second.get("paths", {})
    report.check("Chromium's publisher and subscriber paths start at a relay candidate",
                 {role: p.get("candidateType") for role, p in paths.items()} == {"pub": "relay", "sub": "relay"},
                 f"{paths}")
    selected = aio.selected_candidates()
    report.check("aiortc's publisher and subscriber paths start at a relay candidate",
                 {role: kind for role, (kind, *_) in selected.items()} == {"publisher": "relay", "subscriber": "relay"},
                 f"{selected}")


async def scenario_ipv6(report, context):
    """Issue 15 items 3 and 5: a server on ::1 alone (HTTP, signaling and
    its media worker, which announces ::1 only) and two aiortc clients on
    ::1 alone (signaling to ws://[::1]:port, host candidates on ::1): they
    join, the subscriber decodes the publisher's numbered frames, and every
    selected path is IPv6."""
    server_log = os.path.join(context.log_dir, "vroom-server-ipv6.log")
    try:
        context.server = VroomServer(context.server_binary, log_path=server_log,
                                     extra_args=["--http-address", "::1", "--rtc-address", "::1"])
        await asyncio.to_thread(context.server.start)
    except RuntimeError as error:
        if "Cannot assign requested address" in str(error) or "EADDRNOTAVAIL" in str(error):
            print("    SKIP ipv6: no ::1 here", flush=True)
            return
        raise
    print(f"    vroom-server on {context.server.url}, UDP {context.server.rtc_ports} (log {server_log})", flush=True)
    use_host_addresses(["::1"])

    async def back_to_ipv4():
        use_host_addresses(["127.0.0.1"])

    context.cleanup.append(back_to_ipv4)
    publisher = Participant(context.server.url, "pub6", "interop-ipv6", tone=TONES[0], log=context.log)
    subscriber = Participant(context.server.url, "sub6", "interop-ipv6", log=context.log, publish_audio=False,
                             publish_video=False)
    participants = [publisher, subscriber]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    report.check("both signaled to the server at [::1]",
                 all(p.signal_url.startswith("ws://[::1]:") for p in participants),
                 ", ".join(p.signal_url for p in participants))
    await publish_all(report, [publisher])
    await wait_for_offers(report, [subscriber], {"sub6": {("pub6", "mic"), ("pub6", "camera")}})
    await wait_for_media_path(report, participants)

    def video():
        return subscriber.sinks_by_publisher().get(("pub6", "video"))

    decoded = await wait_until(lambda: video() and len(video().numbers()) >= 30, 20)
    report.check("sub6 decodes pub6's numbered frames over IPv6", decoded,
                 f"{len(video().numbers()) if video() else 0} frames")
    paths = {p.identity: p.selected_candidates() for p in participants}
    report.check("every selected path is ::1 to ::1",
                 all(host == "::1" for selected in paths.values() for _, _, host in selected.values())
                 and paths["pub6"] and paths["sub6"], f"{paths}")
    candidates = [line for _, offer in subscriber.offers for line in offer["sdp"].splitlines()
                  if line.startswith("a=candidate:")]
    report.check("the server's offer announces ::1 only", candidates and all(" ::1 " in c for c in candidates),
                 "; ".join(candidates))

    # A browser too: Chromium loads the page from http://[::1]:port, signals
    # over ws://[::1], publishes, and decodes pub6; sub6 decodes Chromium.
    # Chromium gathers IPv6 candidates, ::1 included, only on a host with an
    # IPv6 interface and default route, which a loopback-only namespace
    # lacks: this one gets a veth pair (both ends inside it, so nothing can
    # leave) with a ULA address and the default route.
    from chromium import DemoPageBrowser
    from shaping import can_shape
    reason = can_shape()
    if reason:
        report.check("IPv6 can be routed here for Chromium (root, in run.sh's loopback-only namespace)", False, reason)
        return
    async def unroute():
        subprocess.run(["ip", "link", "del", "vroom6a"], capture_output=True)

    context.cleanup.append(unroute)  # before it exists: a half-made pair goes too
    for command in (["ip", "link", "add", "vroom6a", "type", "veth", "peer", "name", "vroom6b"],
                    ["ip", "link", "set", "vroom6a", "up"], ["ip", "link", "set", "vroom6b", "up"],
                    ["ip", "-6", "addr", "add", "fd00:76::1/64", "dev", "vroom6a", "nodad"],
                    ["ip", "-6", "route", "add", "default", "dev", "vroom6a"]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            report.stop("an IPv6 interface and default route for Chromium in this namespace",
                        f"{' '.join(command)}: {done.stderr.strip()}")
    browser = DemoPageBrowser(context.server.url, make_token("chrome6", "interop-ipv6"), "interop-ipv6",
                              binary=context.chromium, log_path=os.path.join(context.log_dir, "chromium-ipv6.log"),
                              current_page=True)
    context.cleanup.append(browser.close)
    await browser.__aenter__()
    print(f"    demo page served by {browser.served_by}", flush=True)
    await demo_page_joins(report, browser, "Chromium (page at http://[::1])")
    await wait_for_offers(report, [subscriber], {"sub6": {("pub6", "mic"), ("pub6", "camera"), ("chrome6", "mic"),
                                                          ("chrome6", "camera")}})
    await demo_page_connects(report, browser, "Chromium's connections over IPv6")

    await aiortc_decodes(report, subscriber, "chrome6", "sub6 decodes Chromium's video over IPv6 (30 frames)")
    second = await demo_page_decodes(report, browser, "Chromium decodes pub6's video")
    paths = second.get("paths", {})
    report.check("Chromium's publisher and subscriber paths go to the server at ::1",
                 {role: p.get("remoteAddress") for role, p in paths.items()} == {"pub": "::1", "sub": "::1"}, f"{paths}")


async def scenario_wss(report, context):
    """Issue 15 item 4 in browsers: vroom-server with --tls-cert/--tls-key
    (a self-signed certificate for 127.0.0.1, made here with openssl) serves
    the page over HTTPS and signaling over WSS on one port. Chromium, told
    to trust that certificate's key (--ignore-certificate-errors-spki-list,
    no blanket switch), opens https://127.0.0.1:port/dev/demo in two pages;
    both join over wss:// and decode each other's video."""
    from chromium import DemoPageBrowser, SharedChromium
    import base64
    import hashlib

    cert, key = os.path.join(context.log_dir, "wss-cert.pem"), os.path.join(context.log_dir, "wss-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    spki = subprocess.run(["openssl", "x509", "-in", cert, "-noout", "-pubkey"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=spki, check=True,
                         capture_output=True).stdout
    pin = base64.b64encode(hashlib.sha256(der).digest()).decode()
    server_log = os.path.join(context.log_dir, "vroom-server-wss.log")
    context.server = VroomServer(context.server_binary, log_path=server_log, tls=(cert, key))
    await asyncio.to_thread(context.server.start)
    print(f"    vroom-server on {context.server.url} (log {server_log})", flush=True)
    report.check("the server answers HTTPS with the test's certificate", context.server.url.startswith("https://")
                 and context.server.get_json("/healthz").get("status") == "ok", context.server.url)

    shared = SharedChromium(context.chromium, os.path.join(context.log_dir, "chromium-wss.log"),
                            extra_flags=[f"--ignore-certificate-errors-spki-list={pin}"])
    await shared.start()
    context.cleanup.append(shared.close)
    room = "interop-wss"
    pages = {}
    for identity in ("alice", "bob"):
        page = DemoPageBrowser(context.server.url, make_token(identity, room), room, binary=context.chromium,
                               chromium=shared, served=True)
        context.cleanup.append(page.close)
        await page.__aenter__()
        pages[identity] = page
    for identity, page in pages.items():
        await demo_page_joins(report, page, f"{identity}'s page (https)")
        signal = await page.evaluate("vroom.signalURL")
        report.check(f"{identity} signals over wss:// to the page's origin", (signal or "").startswith(
            context.server.url.replace("https://", "wss://")), f"{signal}")
    for identity, page in pages.items():
        await demo_page_connects(report, page, f"{identity}'s connections")
    for identity, page in pages.items():
        await demo_page_decodes(report, page, f"{identity} decodes the other's video", seconds=2)


DRAIN_TIMEOUT = 4  # --drain-timeout of the drain scenario's nodes, seconds


async def scenario_drain(report, context):
    """Issue 14 item 5 with aiortc: the node hosting a room in use gets
    SIGTERM. Its rooms go on until --drain-timeout; then the room moves:
    each participant gets `reconnect` with the other node's URL (PROTOCOL.md
    8; they were given no fallback), resumes there with the same room,
    participant and track SIDs and new PeerConnections, and the subscriber
    decodes the publisher's frames again. The drained node exits 0."""
    node_a, node_b = await start_cluster(context, ["a", "b"], ["--drain-timeout", str(DRAIN_TIMEOUT)])
    created = await asyncio.to_thread(node_a.post_form, "/v1/Rooms", {"UniqueName": "drained"})
    report.check("room drained created through REST at node a", created.get("sid"), created.get("sid"))
    publisher = Participant(node_a.url, "pub", "drained", tone=TONES[0], log=context.log)
    subscriber = Participant(node_a.url, "sub", "drained", log=context.log, publish_audio=False, publish_video=False)
    participants = [publisher, subscriber]
    context.cleanup.extend(p.close for p in participants)
    await join_all(report, participants)
    await publish_all(report, [publisher])
    await wait_for_offers(report, [subscriber], {"sub": {("pub", "mic"), ("pub", "camera")}})
    await wait_for_media_path(report, participants)

    def video():
        return subscriber.sinks_by_publisher().get(("pub", "video"))

    if not await wait_until(lambda: video() and len(video().numbers()) >= 30, 20):
        report.stop("media: decoded frames before the drain", f"{len(video().numbers()) if video() else 0}")
    before = max(video().numbers())
    track_sids = {name: t["sid"] for name, t in publisher.published.items()}

    asked = time.monotonic()
    node_a.process.terminate()
    print(f"    node a asked to drain (SIGTERM), pid {node_a.process.pid}", flush=True)
    node_b_signal = node_b.url.replace("http://", "ws://") + "/v1/signal"

    def back():
        return first_frame_above(subscriber.sinks, before, subscriber.resumes[0][0]) if subscriber.resumes else None

    await wait_until(lambda: all(p.resumes for p in participants) and back(), DRAIN_TIMEOUT + 15)
    for p in participants:
        if not p.resumes:
            report.check(f"{p.identity} moved to node b", False,
                         failed_stages(p) or "no resume")
            continue
        at, joined = p.resumes[0]
        report.check(f"{p.identity} got `reconnect` at the drain timeout and resumed at node b with the same "
                     f"room and participant SID",
                     p.moves == 1 and p.signal_url == node_b_signal and joined.get("resumed") is True
                     and at - asked >= DRAIN_TIMEOUT - 0.5
                     and joined["room"]["sid"] == p.room_sid and joined["participant"]["sid"] == p.participant_sid,
                     f"{p.moves} move(s), +{at - asked:.2f} s at {p.signal_url}, room {joined['room']['sid']} "
                     f"(was {p.room_sid}), participant {joined['participant']['sid']} (was {p.participant_sid})")
    now = {name: t["sid"] for name, t in publisher.published.items()}
    report.check("pub's tracks keep their SIDs on node b", publisher.resumes and now == track_sids,
                 f"{now} (were {track_sids})")
    frame = back()
    report.check("sub decodes pub's frames again after the move", frame is not None,
                 f"frame {frame[1]} (last before {before}) at +{frame[0] - asked:.2f} s after SIGTERM" if frame
                 else f"nothing above frame {before}")
    try:
        status = await asyncio.to_thread(node_a.process.wait, 15)
    except subprocess.TimeoutExpired:
        status = None
    report.check("the drained node exits 0", status == 0, f"exit status {status}")


async def scenario_shape(report, context):
    """The htb bottleneck of scripts/shape.sh (no server): 2 Mbit/s into a
    port shaped to 500 kbit/s arrives at 500 kbit/s, then at 1000 kbit/s
    after a change mid-test; an unshaped port beside it is untouched. Only
    in a loopback-only namespace (run.sh's unshare --net): elsewhere it is
    skipped, never run against the machine's own interfaces."""
    from shaping import can_shape, check_shaping
    reason = can_shape()
    if reason:
        print(f"    SKIP shaping: {reason}", flush=True)
        return
    await asyncio.to_thread(check_shaping, report.check)


ICETCP_TABLE = "vroom_icetcp"

# The selected candidate pair of each of the page's connections, from getStats().
SELECTED_PAIRS_JS = """(async () => {
  const out = {};
  for (const [name, pc] of [["pub", vroom.pcPub], ["sub", vroom.pcSub]]) {
    if (!pc) { out[name] = null; continue; }
    const stats = [...(await pc.getStats()).values()];
    const byId = new Map(stats.map(s => [s.id, s]));
    const transport = stats.find(s => s.type === "transport");
    const pair = transport && byId.get(transport.selectedCandidatePairId);
    const local = pair && byId.get(pair.localCandidateId);
    const remote = pair && byId.get(pair.remoteCandidateId);
    out[name] = pair ? { local: local && local.protocol, localType: local && local.candidateType,
      tcpType: local && local.tcpType, remote: remote && remote.protocol, remotePort: remote && remote.port,
      bytesSent: pair.bytesSent, bytesReceived: pair.bytesReceived } : null;
  }
  return out;
})()"""


def metric(text, name):
    """The value of an unlabelled sample in /metrics text, or None."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


def metric_samples(text, name):
    """Every sample of `name` in /metrics text, labelled or not: {labels: value}."""
    out = {}
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            head, value = line.rsplit(" ", 1)
            out[head[len(name):] or "{}"] = float(value)
    return out


async def scenario_icetcp(report, context):
    """ICE-TCP (PROTOCOL.md section 9): UDP to the server's media ports is
    dropped by nftables in this network namespace; two Chromium demo pages
    join, publish and decode each other's video over the passive TCP
    candidates (getStats: the selected pairs are TCP)."""
    import subprocess
    from chromium import DemoPageBrowser
    from shaping import can_shape

    reason = can_shape()  # root, and a namespace holding only loopback (never the machine's own rules)
    if reason:
        report.check("UDP can be blocked here (root, in run.sh's loopback-only namespace)", False, reason)
        return
    ports = context.server.rtc_ports
    rules = (f"table inet {ICETCP_TABLE} {{ chain out {{ type filter hook output priority 0; policy accept; "
             f"udp dport {{ {', '.join(map(str, ports))} }} counter drop; }}; }}\n")
    subprocess.run(["nft", "-f", "-"], input=rules, text=True, check=True)

    async def unblock():
        subprocess.run(["nft", "delete", "table", "inet", ICETCP_TABLE], capture_output=True)
    context.cleanup.append(unblock)
    print(f"    nft: UDP to {ports} dropped")

    room = "interop-icetcp"
    pages = {}
    for name in ("alice", "bob"):
        page = DemoPageBrowser(context.server.url, make_token(name, room), room, binary=context.chromium,
                               log_path=os.path.join(context.log_dir, f"chromium-icetcp-{name}.log"))
        context.cleanup.append(page.close)
        await page.__aenter__()
        pages[name] = page

    async def all_pages(condition, timeout):
        deadline = time.monotonic() + timeout
        states = {}
        while time.monotonic() < deadline:
            states = {name: await page.state() for name, page in pages.items()}
            if all(condition(state) for state in states.values()):
                return True, states
            await asyncio.sleep(0.5)
        return False, states

    ok, states = await all_pages(lambda s: s["joined"] and {"mic", "camera"} <= set(s["published"] or {}), 30)
    report.check("both pages joined and published mic + camera", ok,
                 "; ".join(f"{n}: joined={s.get('joined')} errors={s.get('errors')}" for n, s in states.items()))
    ok, states = await all_pages(lambda s: s["pub"] == "connected" and s["sub"] == "connected", 40)
    report.check("both pages' publisher and subscriber connections connect with UDP blocked", ok,
                 "; ".join(f"{n}: pub={s.get('pub')} sub={s.get('sub')}" for n, s in states.items()))
    if not ok:
        report.stop("media: no connection over ICE-TCP")

    async def decoded():
        return {name: sum(v["framesDecoded"] for v in (await page.stats())["inboundVideo"])
                for name, page in pages.items()}
    frames = await decoded()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(n >= 60 for n in frames.values()):
        await asyncio.sleep(1)
        frames = await decoded()
    report.check("each page decodes at least 60 frames of the other's video", all(n >= 60 for n in frames.values()),
                 ", ".join(f"{n}: {f} frames" for n, f in frames.items()))

    for name, page in pages.items():
        pairs = await page.evaluate(SELECTED_PAIRS_JS)
        for connection in ("pub", "sub"):
            pair = (pairs or {}).get(connection)
            report.check(f"{name}'s {connection} connection: the selected candidate pair is TCP on both ends "
                         f"(getStats), to the server's media port",
                         bool(pair) and pair["local"] == "tcp" and pair["remote"] == "tcp"
                         and pair["remotePort"] in ports,
                         f"{pair}")

    text = context.server.get("/metrics", auth=False)[1]
    tcp_in = metric(text, "vroom_tcp_frames_received_total")
    tcp_out = metric(text, "vroom_tcp_frames_sent_total")
    udp_out = metric(text, "vroom_udp_datagrams_sent_total")
    dropped = subprocess.run(["nft", "list", "table", "inet", ICETCP_TABLE], capture_output=True, text=True).stdout
    blocked = next((line.strip() for line in dropped.splitlines() if "counter" in line), "?")
    print(f"    server: {tcp_in:.0f} TCP frames in, {tcp_out:.0f} TCP frames out, {udp_out:.0f} UDP datagrams out; "
          f"nft: {blocked}")
    report.check("the server received and sent its media as RFC 4571 frames, and sent no UDP (/metrics)",
                 (tcp_in or 0) > 300 and (tcp_out or 0) > 300 and udp_out == 0,
                 f"{tcp_in} TCP frames in, {tcp_out} out, {udp_out} UDP datagrams out")


# The link of scenario icetcp-loss: this share of the packets to and from the
# media ports is dropped, UDP and TCP alike (nftables' numgen, in run.sh's
# namespace). The kernel here has no netem, and vroom-impair relays UDP only:
# TCP's own retransmissions (the head-of-line blocking to measure) need loss
# of IP packets under the TCP stack, which only the kernel can inflict.
LOSS_TABLE = "vroom_loss"
LOSS_PERCENT = 2
LOSS_RUN_SECONDS = 20


async def scenario_icetcp_loss(report, context):
    """The SDK (vroom-loadtest: 1 publisher, 2 decoding subscribers) over
    UDP and then over ICE-TCP, through the same link losing 2% of its packets
    each way: media keeps flowing over TCP, and the capture-to-decode latency
    and the loss of both runs are reported side by side."""
    import subprocess
    from shaping import can_shape

    reason = can_shape()
    if reason:
        report.check("packets can be dropped here (root, in run.sh's loopback-only namespace)", False, reason)
        return
    loadtest = find_binary("vroom-loadtest")
    ports = ", ".join(map(str, context.server.rtc_ports))
    drop = f"numgen random mod 100 < {LOSS_PERCENT} counter drop"
    # On the input hook: a packet lost there is lost on the wire to its
    # sender. On the output hook the sender's own send would fail (EPERM),
    # which no real network does, and TCP would learn of each loss at once.
    rules = (f"table inet {LOSS_TABLE} {{ chain in {{ type filter hook input priority 0; policy accept; "
             f"udp dport {{ {ports} }} {drop}; udp sport {{ {ports} }} {drop}; "
             f"tcp dport {{ {ports} }} {drop}; tcp sport {{ {ports} }} {drop}; }}; }}\n")
    subprocess.run(["nft", "-f", "-"], input=rules, text=True, check=True)

    async def clear():
        subprocess.run(["nft", "delete", "table", "inet", LOSS_TABLE], capture_output=True)
    context.cleanup.append(clear)

    def counters():
        text = context.server.get("/metrics", auth=False)[1]
        return {name: metric(text, name) or 0 for name in ("vroom_tcp_frames_received_total",
                                                           "vroom_udp_datagrams_sent_total")}

    results = {}
    for transport in ("udp", "tcp"):
        before = counters()
        command = [loadtest, "--url", context.server.url, "--rooms", "1", "--publishers", "1", "--subscribers", "2",
                   "--decode-sample", "2", "--duration", str(LOSS_RUN_SECONDS), "--media-transport", transport,
                   "--room-prefix", f"loss-{transport}", "--max-loss", "1", "--json", "--quiet"]
        log_path = os.path.join(context.log_dir, f"loadtest-loss-{transport}.log")
        with open(log_path, "w") as log:
            running = asyncio.ensure_future(asyncio.to_thread(
                subprocess.run, command, stdout=subprocess.PIPE, stderr=log, text=True, timeout=LOSS_RUN_SECONDS + 90))
            # What the server did meanwhile, to tell a stall's cause when
            # media stops: tracks it switched off (the gauge, sampled), and
            # below the ICE-TCP connections it closed and the frames it dropped.
            switched_off = 0
            while not running.done():
                text = (await asyncio.to_thread(context.server.get, "/metrics", auth=False))[1]
                switched_off = max(switched_off, sum(metric_samples(text, "vroom_tracks_switched_off").values()))
                await asyncio.wait([running], timeout=0.25)
            run = running.result()
        try:
            result = json.loads(run.stdout)
        except ValueError:
            report.check(f"{transport}: vroom-loadtest printed its report", False,
                         f"exit {run.returncode}, log {log_path}")
            return
        after = counters()
        result["tcpFramesIn"] = after["vroom_tcp_frames_received_total"] - before["vroom_tcp_frames_received_total"]
        result["udpSent"] = after["vroom_udp_datagrams_sent_total"] - before["vroom_udp_datagrams_sent_total"]
        results[transport] = result
        text = context.server.get("/metrics", auth=False)[1]
        closes = {labels: value for labels, value in metric_samples(text, "vroom_tcp_connections_closed_total").items()
                  if value}
        slow = metric(text, 'vroom_packets_dropped_total{reason="tcp_slow_reader"}') or 0
        print(f"    {transport}: server: at most {switched_off:.0f} track(s) switched off at once; ICE-TCP closes so far "
              f"{closes or 'none'}; TCP frames dropped for slow readers so far {slow:.0f}")
        latency = result["latencyMilliseconds"]
        print(f"    figure: {transport}: joined {result['participants']['joined']}/3, loss "
              f"{100 * (result.get('lossFraction') or 0):.2f}%, latency p50 {latency.get('p50')} ms, "
              f"p99 {latency.get('p99')} ms, max {latency.get('max')} ms ({latency['count']} frames), "
              f"worst frame ratio {result.get('worstFrameRatio')}; server: {result['tcpFramesIn']:.0f} TCP frames in, "
              f"{result['udpSent']:.0f} UDP datagrams out")

    dropped = subprocess.run(["nft", "list", "table", "inet", LOSS_TABLE], capture_output=True, text=True).stdout
    print("    nft: " + "; ".join(line.strip() for line in dropped.splitlines() if "counter" in line))
    for transport, result in results.items():
        report.check(f"{transport}: all 3 participants joined through the lossy link",
                     result["participants"]["joined"] == 3 and result["participants"]["failed"] == 0,
                     f"{result['participants']}")
        ratio = result.get("worstFrameRatio") or 0
        report.check(f"{transport}: media keeps flowing (every decoding subscriber reads back at least 80% of the "
                     f"frames sent)", ratio >= 0.8, f"worst frame ratio {ratio}")
    tcp, udp = results["tcp"], results["udp"]
    report.check("tcp: the media went as RFC 4571 frames, and the server sent no UDP (/metrics)",
                 tcp["tcpFramesIn"] > 300 and tcp["udpSent"] == 0,
                 f"{tcp['tcpFramesIn']:.0f} TCP frames in, {tcp['udpSent']:.0f} UDP datagrams out")
    report.check("udp: the media went over UDP", udp["tcpFramesIn"] == 0 and udp["udpSent"] > 300,
                 f"{udp['tcpFramesIn']:.0f} TCP frames in, {udp['udpSent']:.0f} UDP datagrams out")
    u, t = udp["latencyMilliseconds"], tcp["latencyMilliseconds"]
    if all(x.get(k) is not None for x in (u, t) for k in ("p50", "p99")):
        print(f"    figure: head-of-line blocking: TCP adds {t['p50'] - u['p50']:+.1f} ms at p50 and "
              f"{t['p99'] - u['p99']:+.1f} ms at p99 over UDP on the same {LOSS_PERCENT}% loss link; "
              f"loss {100 * (udp.get('lossFraction') or 0):.2f}% over UDP, {100 * (tcp.get('lossFraction') or 0):.2f}% over TCP")


# -- the JavaScript SDK (issue 17) ---------------------------------------------
# Two pages of one headless Chromium, at the server's origin, import
# /sdk/vroom.js and `connect` with fake camera and microphone: they see each
# other (participants, trackSubscribed, frames decoded in the elements the
# SDK's attach() made), a disabled camera shows on the other side, a killed
# WebSocket resumes (reconnecting, reconnected; the other page sees
# participantReconnecting and participantReconnected), garbage from the
# server is logged as warnings and breaks nothing, and a disconnect is seen.

SDK_PAGE_SETUP = """(async () => {
  const v = await import("/sdk/vroom.js");
  window.sdk = { version: v.version, log: [], warnings: [], error: null };
  v.logger.warn = (...args) => window.sdk.warnings.push(args.map((a) => a && a.message ? a.message : String(a)).join(" "));
  const describe = (x) => x === null || x === undefined ? null
    : (x.identity || x.trackSid || x.sid || (x.code !== undefined ? "E" + x.code : String(x)));
  try {
    const room = window.room = await v.connect(%s, { name: %s, audio: true,
      video: { width: 640, height: 360 } });
    for (const event of ["participantConnected", "participantDisconnected", "participantReconnecting",
        "participantReconnected", "reconnecting", "reconnected", "disconnected", "trackSubscribed",
        "trackUnsubscribed", "trackPublished", "trackUnpublished", "trackEnabled", "trackDisabled",
        "dominantSpeakerChanged", "trackSwitchedOff", "trackSwitchedOn", "messageReceived"]) {
      room.on(event, (...args) => window.sdk.log.push({ event, args: args.map(describe), t: Date.now() }));
    }
    room.on("trackSubscribed", (track) => {
      const element = track.attach();
      element.dataset.sid = track.sid;
      if (track.kind === "video") { element.style.width = "320px"; element.style.height = "180px"; }
      document.body.append(element);
    });
    // Tracks subscribed before the listener: attach them too.
    for (const participant of room.participants.values()) {
      for (const publication of participant.tracks.values()) {
        if (publication.track) room.emit("trackSubscribed", publication.track, publication, participant);
      }
    }
    return { sid: room.localParticipant.sid, identity: room.localParticipant.identity, room: room.sid };
  } catch (error) {
    window.sdk.error = { code: error.code, message: error.message };
    return null;
  }
})()"""

SDK_PAGE_STATE = """(async () => {
  const room = window.room;
  const videos = [...document.querySelectorAll("video[data-sid]")].map((v) => ({ sid: v.dataset.sid,
    width: v.videoWidth, height: v.videoHeight }));
  let decoded = 0;
  if (room && room._subscriber) {
    for (const s of (await room._subscriber.getStats()).values()) {
      if (s.type === "inbound-rtp" && s.kind === "video") decoded += s.framesDecoded || 0;
    }
  }
  return { state: room ? room.state : null, log: window.sdk.log, warnings: window.sdk.warnings,
    error: window.sdk.error, videos, decoded,
    participants: room ? [...room.participants.values()].map((p) => ({ sid: p.sid, identity: p.identity,
      state: p.state, tracks: [...p.tracks.values()].map((t) => ({ sid: t.trackSid, kind: t.kind,
      enabled: t.isTrackEnabled, subscribed: t.isSubscribed })) })) : [],
    published: room && room.localParticipant ? [...room.localParticipant.tracks.values()].map((t) => ({
      sid: t.trackSid, kind: t.kind, name: t.trackName })) : [] };
})()"""


async def scenario_sdk_js(report, context):
    from chromium import DemoPageBrowser, SharedChromium

    room = "interop-sdk-js"
    shared = SharedChromium(context.chromium, os.path.join(context.log_dir, "chromium-sdk-js.log"))
    await shared.start()
    context.cleanup.append(shared.close)
    pages = {}
    for identity in ("alice", "bob"):
        # The demo page at the server's origin, not joining (autojoin=0):
        # only a document the SDK module is imported into.
        page = DemoPageBrowser(context.server.url, make_token(identity, room), room, binary=context.chromium,
                               query={"autojoin": "0"}, chromium=shared)
        context.cleanup.append(page.close)
        await page.__aenter__()
        pages[identity] = page
    joined_rooms = {}
    for identity, page in pages.items():
        token = make_token(identity, room)
        joined = await page.evaluate(SDK_PAGE_SETUP % (json.dumps(token), json.dumps(room)))
        joined_rooms[identity] = (joined or {}).get("room")
        error = await page.evaluate("window.sdk.error")
        report.check(f"{identity}: connect() resolves to a Room (the SDK from the server's /sdk/vroom.js)",
                     joined is not None, json.dumps(joined or error))
        if joined is None:
            report.stop("sdk", f"{identity} did not connect")

    async def state(identity):
        return await pages[identity].evaluate(SDK_PAGE_STATE)

    async def wait_state(identity, condition, timeout):
        return await poll_value(lambda: state(identity), condition, timeout)

    def events(current, name):
        return [entry["args"] for entry in current["log"] if entry["event"] == name]

    # Each sees the other, with both tracks subscribed and video decoding.
    for identity, other in (("alice", "bob"), ("bob", "alice")):
        current = await wait_state(identity, lambda s: len(events(s, "trackSubscribed")) >= 2
                                   and any(v["width"] > 0 for v in s["videos"]) and s["decoded"] > 10, 30)
        names = [p["identity"] for p in current["participants"]]
        report.check(f"{identity}: room.participants holds {other}", names == [other], f"{names}")
        subscribed = sorted(t["kind"] for p in current["participants"] for t in p["tracks"] if t["subscribed"])
        report.check(f"{identity}: trackSubscribed for {other}'s audio and video", subscribed == ["audio", "video"],
                     f"subscribed {subscribed}; events {events(current, 'trackSubscribed')}")
        report.check(f"{identity}: {other}'s video decodes in the element track.attach() made",
                     any(v["width"] > 0 for v in current["videos"]) and current["decoded"] > 10,
                     f"videos {current['videos']}, framesDecoded {current['decoded']}")

    # alice disables her camera: bob sees trackDisabled, then trackEnabled.
    alice = await state("alice")
    camera = next(t["sid"] for t in alice["published"] if t["kind"] == "video")
    for enabled, event in ((False, "trackDisabled"), (True, "trackEnabled")):
        await pages["alice"].evaluate(
            f"[...room.localParticipant.videoTracks.values()][0].track.{'enable' if enabled else 'disable'}(), true")
        bob = await wait_state("bob", lambda s: [camera, "alice"] in events(s, event), 10)
        flag = next((t["enabled"] for p in bob["participants"] for t in p["tracks"] if t["sid"] == camera), None)
        report.check(f"alice's camera {'enabled' if enabled else 'disabled'}: bob gets {event} "
                     f"(publication.isTrackEnabled {str(enabled).lower()})",
                     [camera, "alice"] in events(bob, event) and flag is enabled, f"{events(bob, event)}, flag {flag}")

    # A publish the server refuses (a duplicate name: 53304) rejects with its
    # code and leaves nothing behind: the next publish works.
    outcome = await pages["alice"].evaluate("""(async () => {
      const v = await import("/sdk/vroom.js");
      const taken = [...room.localParticipant.audioTracks.values()][0].trackName;
      const result = {};
      try {
        await room.localParticipant.publishTrack(await v.createLocalAudioTrack(), { name: taken });
        result.duplicate = "published";
      } catch (error) { result.duplicate = `${error.code} ${error.name}`; }
      try {
        const publication = await room.localParticipant.publishTrack(await v.createLocalAudioTrack(), { name: "second-mic" });
        result.next = publication.trackName;
      } catch (error) { result.next = `${error.code} ${error.name}`; }
      result.names = [...room.localParticipant.tracks.values()].map((t) => t.trackName).sort();
      return result;
    })()""")
    report.check("a publish refused with 53304 (a duplicate name) rejects with it; the next publish works",
                 outcome["duplicate"] == "53304 TrackNameIsDuplicatedError" and outcome["next"] == "second-mic"
                 and len(outcome["names"]) == 3, f"{outcome}")

    # bob's WebSocket dies: bob reconnects (resume), alice sees it.
    await pages["bob"].evaluate("room._signaling.ws.close(), true")
    bob = await wait_state("bob", lambda s: events(s, "reconnected"), 20)
    order = [e["event"] for e in bob["log"] if e["event"] in ("reconnecting", "reconnected")]
    report.check("bob's WebSocket closed: reconnecting, then reconnected (resume), the room connected",
                 order[:2] == ["reconnecting", "reconnected"] and bob["state"] == "connected", f"{order}, {bob['state']}")
    alice = await wait_state("alice", lambda s: events(s, "participantReconnected"), 20)
    seen = [e["event"] for e in alice["log"] if e["event"].startswith("participantRecon")]
    report.check("alice sees participantReconnecting, then participantReconnected for bob",
                 seen[:2] == ["participantReconnecting", "participantReconnected"], f"{seen}")
    before = bob["decoded"]
    bob = await wait_state("bob", lambda s: s["decoded"] > before + 20, 10)
    report.check("bob still decodes alice's video after the resume", bob["decoded"] > before + 20,
                 f"framesDecoded {before} -> {bob['decoded']}")

    # Garbage from the server: warnings, no exception, nothing changes.
    warnings_before = len(bob["warnings"])
    await pages["bob"].evaluate("""(() => {
      room._signaling.receive("not json {");
      room._signaling.receive(JSON.stringify({ type: "noSuchMessage", x: 1 }));
      room._signaling.receive(JSON.stringify({ type: "trackEnabled", participantSid: "PA0", trackSid: "MT0" }));
      room._signaling.receive(JSON.stringify([1, 2]));
      return true; })()""")
    bob = await state("bob")
    added = bob["warnings"][warnings_before:]
    report.check("malformed, unknown and out-of-order frames: 4 warnings, the room still connected",
                 len(added) == 4 and bob["state"] == "connected" and len(bob["participants"]) == 1, f"{added}")

    # alice leaves: bob sees trackUnsubscribed and participantDisconnected.
    await pages["alice"].evaluate("room.disconnect(), true")
    bob = await wait_state("bob", lambda s: events(s, "participantDisconnected"), 15)
    report.check("alice disconnects: bob gets trackUnsubscribed for each of her 3 tracks and participantDisconnected",
                 len(events(bob, "trackUnsubscribed")) == 3 and ["alice"] in events(bob, "participantDisconnected")
                 and bob["participants"] == [],
                 f"unsubscribed {events(bob, 'trackUnsubscribed')}, disconnected {events(bob, 'participantDisconnected')}")
    alice = await state("alice")
    report.check("alice's room: one disconnected(room, null), state disconnected",
                 alice["state"] == "disconnected" and events(alice, "disconnected") == [[joined_rooms["alice"], None]],
                 f"{alice['state']}, {events(alice, 'disconnected')}")


# -- the SDK's state machine against a scripted server (issue 17) ---------------
# No vroom-server: a page at a local origin imports the SDK from the source
# tree, and `connect`s to fake_signaling.py, which plays one script per token
# (see there). The order of events, the protocol's error codes and names, a
# resume after a drop, a missed reconnect window, redirects and a duplicate
# identity, each checked from the events the app would see.

SDK_UNIT_RUNNER = """(async () => {
  const v = await import("/sdk/vroom.js");
  const warnings = [];
  v.logger.warn = (...args) => warnings.push(args.map((a) => (a && a.message) || String(a)).join(" "));
  const EVENTS = ["participantConnected", "participantDisconnected", "participantReconnecting",
    "participantReconnected", "reconnecting", "reconnected", "disconnected", "trackPublished", "trackUnpublished",
    "trackEnabled", "trackDisabled", "trackInterrupted", "dominantSpeakerChanged", "networkQualityLevelChanged",
    "messageReceived"];
  const describe = (x) => x === null || x === undefined ? null
    : x instanceof Error ? `${x.code} ${x.name}`
    : (x.identity || x.trackSid || x.sid || (typeof x === "object" ? JSON.stringify(x.content || x) : String(x)));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  async function until(log, event, ms) {
    for (let waited = 0; waited < ms && !log.some((e) => e[0] === event); waited += 50) await sleep(50);
  }
  async function run(token, after) {
    const log = [];
    try {
      const room = await v.connect(token, { signalingURL: %s + "/v1/signal", tracks: [] });
      for (const event of EVENTS) room.on(event, (...args) => log.push([event, ...args.map(describe)]));
      const extra = after ? await after(room, log) : {};
      return Object.assign({ log, state: room.state, participants: [...room.participants.values()].map((p) => p.identity),
        dominant: room.dominantSpeaker && room.dominantSpeaker.identity }, extra);
    } catch (error) {
      return { error: `${error.code} ${error.name}`, log };
    }
  }
  const out = {};
  out.ok = await run("ok", async (room, log) => {
    const contents = [];
    room.on("messageReceived", (message) => contents.push(message.content));
    await until(log, "participantDisconnected", 3000);
    const carol = [...room.participants.values()].find((p) => p.identity === "carol");
    const camera = carol && [...carol.tracks.values()][0];
    return { camera: camera && { enabled: camera.isTrackEnabled, interrupted: camera.isTrackInterrupted },
      quality: carol && carol.networkQualityLevel, contents };
  });
  out.expired = await run("expired");
  out.redirectOnce = await run("redirect-once", (room) => { room.disconnect(); return {}; });
  out.redirectLoop = await run("redirect-loop");
  out.drop = await run("drop", async (room, log) => { await until(log, "reconnected", 5000); return {}; });
  out.move = await run("move", async (room, log) => { await until(log, "reconnected", 5000); return {}; });
  out.late = await run("late", async (room, log) => { await until(log, "disconnected", 5000); return {}; });
  out.duplicate = await run("duplicate", async (room, log) => { await until(log, "disconnected", 3000); return {}; });
  out.requests = await run("requests", async (room) => {
    try { await room.localParticipant.sendMessage({ hi: 1 }); return { sent: "resolved" }; }
    catch (error) { return { sent: `${error.code} ${error.name}`, stateAfter: room.state }; }
  });
  out.warnings = warnings;
  return out;
})()"""


async def scenario_sdk_unit(report, context):
    from chromium import SharedChromium, DevTools, serve_page
    from fake_signaling import FakeSignaling
    import websockets

    fake = FakeSignaling().start()
    context.cleanup.append(lambda: asyncio.sleep(0, fake.stop()))
    sdk = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Sources", "AdminAPI", "WebPages",
                       "sdk", "vroom.js")
    with open(sdk, "rb") as f:
        page_server, base = serve_page({"/": (b"<!doctype html><title>sdk-unit</title>", "text/html; charset=utf-8"),
                                        "/sdk/vroom.js": (f.read(), "text/javascript; charset=utf-8")})
    context.cleanup.append(lambda: asyncio.to_thread(page_server.shutdown))
    shared = SharedChromium(context.chromium, os.path.join(context.log_dir, "chromium-sdk-unit.log"))
    await shared.start()
    context.cleanup.append(shared.close)
    socket_url, _ = await shared.open(base)
    socket = await websockets.connect(socket_url, max_size=None)
    context.cleanup.append(socket.close)
    page = DevTools(socket)
    # The new target starts at about:blank, whose readyState is already
    # "complete": wait for this page's own document (its title) too.
    await poll_value(lambda: page.evaluate("document.readyState === 'complete' && document.title"),
                     lambda title: title == "sdk-unit", 10)
    out = await page.evaluate(SDK_UNIT_RUNNER % json.dumps(fake.url))
    events = lambda case: [entry[0] for entry in out[case]["log"]]

    ok = out["ok"]
    expected = ["participantConnected", "trackPublished", "trackDisabled", "trackInterrupted", "dominantSpeakerChanged",
                "networkQualityLevelChanged", "messageReceived", "participantDisconnected"]
    report.check("ok: the server's events reach the app in order, as twilio-video.js names them",
                 events("ok") == expected, f"{events('ok')}")
    report.check("ok: the room's state after them (carol only, dominant; her camera disabled for an interruption; "
                 "quality 3; the message's JSON content parsed)",
                 ok.get("participants") == ["carol"] and ok.get("dominant") == "carol"
                 and ok.get("camera") == {"enabled": False, "interrupted": True} and ok.get("quality") == 3
                 and ok.get("contents") == [{"hello": 1}],
                 json.dumps({k: ok.get(k) for k in ("participants", "dominant", "camera", "quality", "contents")}))
    report.check("expired: connect() rejects with 20104 AccessTokenExpiredError", out["expired"].get("error")
                 == "20104 AccessTokenExpiredError", f"{out['expired']}")
    joins = [(script, node2) for script, node2, _ in fake.joins]
    report.check("redirect-once: the join follows the redirect to the other node and succeeds",
                 out["redirectOnce"].get("state") == "disconnected" and "error" not in out["redirectOnce"]
                 and joins.count(("redirect-once", False)) == 1 and joins.count(("redirect-once", True)) == 1,
                 f"{out['redirectOnce']}, joins {joins}")
    report.check("redirect-loop: after 3 redirects connect() rejects with 53000 (4 joins)",
                 out["redirectLoop"].get("error") == "53000 SignalingConnectionError"
                 and joins.count(("redirect-loop", False)) == 4, f"{out['redirectLoop']}, joins {joins}")
    resumes = [message.get("resume") for script, _, message in fake.joins if script == "drop"]
    report.check("drop: reconnecting, then reconnected; the resume carried the session token",
                 events("drop") == ["reconnecting", "reconnected"] and out["drop"]["state"] == "connected"
                 and resumes == [None, "session-1"], f"{out['drop']['log']}, resumes {resumes}")
    moves = [(node2, message.get("resume")) for script, node2, message in fake.joins if script == "move"]
    report.check("move: reconnect to another node gives reconnecting, then reconnected; the resume went to that node "
                 "with the session token",
                 events("move") == ["reconnecting", "reconnected"] and out["move"]["state"] == "connected"
                 and moves == [(False, None), (True, "session-1")], f"{out['move']['log']}, joins {moves}")
    late = out["late"]["log"]
    report.check("late: reconnecting, then disconnected with 53001 (the refused resume's code)",
                 events("late") == ["reconnecting", "disconnected"]
                 and late[-1][2] == "53001 SignalingConnectionDisconnectedError", f"{late}")
    duplicate = out["duplicate"]["log"]
    report.check("duplicate: disconnected(room, 53205 ParticipantDuplicateIdentityError)",
                 events("duplicate") == ["disconnected"] and duplicate[0][2] == "53205 ParticipantDuplicateIdentityError",
                 f"{duplicate}")
    report.check("requests: sendMessage rejects with the messageFailed code (429); the room stays connected",
                 out["requests"].get("sent") == "429 VroomError" and out["requests"].get("stateAfter") == "connected",
                 f"{out['requests']}")
    report.check("no warning logged (every frame of the scripts is one the SDK knows)", out["warnings"] == [],
                 f"{out['warnings']}")


# -- the meeting page (issue 17) ------------------------------------------------
# alice in headless Chromium and bob in headless Firefox ESR (WebDriver BiDi)
# open /?name=...&room=...&autojoin=1 (the server runs with --dev: the
# page gets its tokens from GET /dev/token): each page's tiles name both
# participants and show the other's video; a muted microphone and a stopped
# camera show in the other page's tile, and clear when turned back on.
# Screenshots of both pages are kept in the log directory (meet-*.png).

MEET_TILES = "window.meet && window.meet.room && window.meet.room.state === 'connected' ? window.meet.tiles() : null"


class SDKParticipant:
    """`vroom-join`: one Swift SDK participant in a room, its JSON lines
    (what it received from whom, once a second) read as they come."""

    def __init__(self, binary, server_url, token, tone, log_path):
        import threading
        self.log = open(log_path, "w")
        self.process = subprocess.Popen([binary, "--url", server_url, "--duration", "600", "--tone", str(tone)],
                                        env={**os.environ, "VROOM_TOKEN": token}, stdout=subprocess.PIPE,
                                        stderr=self.log, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stdout:
            try:
                self.lines.append(json.loads(line))
            except ValueError:
                pass

    def latest(self):
        return self.lines[-1] if self.lines else {}

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


async def scenario_meet(report, context):
    from chromium import SharedChromium, DevTools
    from firefox_bidi import FirefoxPage
    import base64
    import websockets

    room = "interop-meet"

    def url(identity):
        return f"{context.server.url}/?" + urllib.parse.urlencode({"name": identity, "room": room, "autojoin": "1"})

    shared = SharedChromium(context.chromium, os.path.join(context.log_dir, "chromium-meet.log"))
    await shared.start()
    context.cleanup.append(shared.close)
    socket_url, _ = await shared.open(url("alice"))
    socket = await websockets.connect(socket_url, max_size=None)
    context.cleanup.append(socket.close)
    alice = DevTools(socket)
    # A laptop's window, for the screenshot (headless Chromium's default is 800x600).
    await alice.call("Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False)
    bob = FirefoxPage(context.firefox, url("bob"), context.server.url, os.path.join(context.log_dir, "firefox-meet.log"))
    context.cleanup.append(bob.close)
    await bob.start()
    pages = {"alice": alice, "bob": bob}
    browsers = {"alice": "Chromium", "bob": "Firefox"}
    # The third participant is no browser: the Swift SDK (vroom-join), with
    # a test-pattern camera and a tone, printing what it receives each second.
    carol = SDKParticipant(find_binary("vroom-join"), context.server.url, make_token("carol", room), TONES[2],
                           os.path.join(context.log_dir, "vroom-join-carol.log"))
    context.cleanup.append(lambda: asyncio.to_thread(carol.stop))

    async def tiles(identity):
        try:
            return await pages[identity].evaluate(MEET_TILES)
        except RuntimeError:
            return None

    async def wait_tiles(identity, condition, timeout):
        return await poll_value(lambda: tiles(identity), lambda ts: ts is not None and condition(ts), timeout) or []

    def tile(current, name):
        return next((t for t in current if t["name"].split(" (")[0] == name), None)

    playing = lambda ts, names: all(tile(ts, n) and tile(ts, n)["videoWidth"] > 0 for n in names)
    for identity, other in (("alice", "bob"), ("bob", "alice")):
        current = await wait_tiles(identity, lambda ts: playing(ts, [other, "carol"]), 40)
        errors = await pages[identity].evaluate("window.meet ? window.meet.errors : 'no page'")
        report.check(f"{identity}'s page ({browsers[identity]}): a tile for each of the three participants, named; "
                     f"{other}'s video ({browsers[other]}) and carol's (Swift SDK) playing",
                     sorted(t["name"] for t in current) == sorted([f"{identity} (you)", other, "carol"])
                     and playing(current, [other, "carol"]),
                     f"tiles {[(t['name'], t['videoWidth']) for t in current]}; errors {errors}")
    # Network quality is sent on change; a late joiner gets the others'
    # current levels right after joined, so every tile has its bars.
    for identity in pages:
        current = await wait_tiles(identity, lambda ts: len(ts) == 3 and all(t["quality"] for t in ts), 15)
        report.check(f"{identity}'s page: network-quality bars on every tile (the later joiner too)",
                     len(current) == 3 and all(t["quality"] for t in current),
                     f"{[(t['name'], t['quality']) for t in current]}")
    # Each browser hears the other two: audio packets in its subscriber
    # connection's getStats for each remote microphone, growing.
    heard_by_page = """(async () => {
      const out = {};
      for (const p of meet.room.participants.values()) {
        const publication = [...p.audioTracks.values()][0];
        let packets = 0;
        if (publication && publication.track && meet.room._subscriber) {
          for (const s of (await meet.room._subscriber.getStats(publication.track.mediaStreamTrack)).values()) {
            if (s.type === "inbound-rtp") packets += s.packetsReceived || 0;
          }
        }
        out[p.identity] = packets;
      }
      return out;
    })()"""
    for identity in pages:
        first = await pages[identity].evaluate(heard_by_page)
        later = await poll_value(lambda: pages[identity].evaluate(heard_by_page),
                                 lambda now: len(now) == 2 and all(now[k] >= first.get(k, 0) + 50 for k in now), 15)
        report.check(f"{identity}'s page ({browsers[identity]}) hears both others: 50 more audio packets from each "
                     f"(getStats)", len(later) == 2 and all(later[k] >= first.get(k, 0) + 50 for k in later),
                     f"{first} -> {later}")

    def got(who, kind):
        return next((r for r in carol.latest().get("received", []) if r["identity"] == who and r["kind"] == kind), {})

    heard = await wait_until(lambda: all(got(who, "video").get("framesDecoded", 0) >= 30
                                         and got(who, "audio").get("framesDecoded", 0) >= 50 for who in ("alice", "bob")), 30)
    report.check("carol (Swift SDK) decodes both browsers' video (30 frames or more) and audio (50 Opus frames or more)",
                 heard, f"{[(who, got(who, 'video'), got(who, 'audio')) for who in ('alice', 'bob')]}")

    for actor, viewer in (("bob", "alice"), ("alice", "bob")):
        for button, field, shown in (("mic", "mic", "muted"), ("camera", "overlay", "camera off")):
            await pages[actor].evaluate(f"(document.getElementById('{button}').click(), true)")
            current = await wait_tiles(viewer, lambda ts: tile(ts, actor) and tile(ts, actor)[field] == shown, 10)
            report.check(f"{actor}'s {button} off: {viewer}'s tile for {actor} shows '{shown}'",
                         tile(current, actor) is not None and tile(current, actor)[field] == shown,
                         f"{tile(current, actor)}")
            own = await wait_tiles(actor, lambda ts: tile(ts, actor) and tile(ts, actor)[button] != "", 5)
            report.check(f"{actor}'s own tile shows the {button} off",
                         tile(own, actor) is not None and tile(own, actor)[button] != "", f"{tile(own, actor)}")
            await pages[actor].evaluate(f"(document.getElementById('{button}').click(), true)")
            current = await wait_tiles(viewer, lambda ts: tile(ts, actor) and tile(ts, actor)[field] == "", 10)
            report.check(f"{actor}'s {button} on again: {viewer}'s tile for {actor} clears",
                         tile(current, actor) is not None and tile(current, actor)[field] == "",
                         f"{tile(current, actor)}")

    # Device choice: alice picks her camera again (the list's onchange):
    # the track restarts on it (a new capture in the same sender, as
    # twilio-video.js's restart): same SID, and bob decodes the new frames.
    camera_track = "(() => { const p = [...meet.room.localParticipant.videoTracks.values()][0]; " \
                   "return p && [p.trackSid, p.track.mediaStreamTrack.id, p.track.mediaStreamTrack.readyState]; })()"
    # Frames of alice's camera bob has decoded (getStats of his subscriber
    # connection for her track's receiver).
    decoded_from_alice = """(async () => {
      const alice = [...meet.room.participants.values()].find((p) => p.identity === "alice");
      const publication = alice && [...alice.videoTracks.values()][0];
      if (!publication || !publication.track || !meet.room._subscriber) return 0;
      let frames = 0;
      for (const s of (await meet.room._subscriber.getStats(publication.track.mediaStreamTrack)).values()) {
        if (s.type === "inbound-rtp") frames += s.framesDecoded || 0;
      }
      return frames;
    })()"""
    before = await alice.evaluate(camera_track)
    switched = await alice.evaluate("(async () => { try { await meet.switchDevice('video', "
                                    "document.getElementById('camera-device').value); return 'ok'; } "
                                    "catch (e) { return String(e); } })()")
    after = await alice.evaluate(camera_track)
    decoded_before = await bob.evaluate(decoded_from_alice)
    decoded_after = await poll_value(lambda: bob.evaluate(decoded_from_alice), lambda n: n >= decoded_before + 20, 15)
    status = await alice.evaluate("document.getElementById('status').textContent")
    report.check("alice switches camera (device choice): her camera is a new capture track, live, under the same "
                 "SID; bob decodes 20 more of its frames; no error",
                 switched == "ok" and before and after and after[0] == before[0] and after[1] != before[1]
                 and after[2] == "live" and decoded_after >= decoded_before + 20 and status.startswith("In "),
                 f"switch: {switched}; camera {before} -> {after}; bob decoded {decoded_before} -> {decoded_after} "
                 f"of her frames; alice's status: {status}")

    # The app's own way: unpublish the camera and publish a new capture
    # under the same name at once (one offer: the server keeps the name's
    # SID, on a new m-line); bob decodes the new track's frames.
    decoded_before = await bob.evaluate(decoded_from_alice)
    republished = await alice.evaluate("""(async () => {
      const participant = meet.room.localParticipant;
      const old = [...participant.videoTracks.values()][0].track;
      const next = await createLocalVideoTrack({ width: 1280, height: 720, name: "camera" });
      participant.unpublishTrack(old);
      old.stop();
      try { await participant.publishTrack(next); } catch (e) { return String(e); }
      next.attach(document.querySelector(".tile[data-local='1'] video"));
      return [...participant.videoTracks.values()].map((p) => p.trackSid);
    })()""".replace("createLocalVideoTrack", "meet.sdk.createLocalVideoTrack"))
    decoded_after = await poll_value(lambda: bob.evaluate(decoded_from_alice), lambda n: n >= decoded_before + 20, 15)
    report.check("alice unpublishes her camera and publishes a new capture under its name in one go: bob decodes "
                 "20 more frames of it",
                 isinstance(republished, list) and len(republished) == 1 and decoded_after >= decoded_before + 20,
                 f"alice's camera SIDs {republished}; bob decoded {decoded_before} -> {decoded_after}")

    # alice's signaling socket dies: bob's tile for her says so, then clears.
    overlays_before = len(await bob.evaluate("meet.overlays"))
    await alice.evaluate("(meet.room._signaling.ws.close(), true)")
    overlays = await poll_value(lambda: bob.evaluate("meet.overlays"),
                                lambda seen: ["alice", "reconnecting..."] in seen[overlays_before:], 10)
    report.check("alice's WebSocket closed: bob's tile for her shows 'reconnecting...' (participantReconnecting)",
                 ["alice", "reconnecting..."] in overlays[overlays_before:], f"{overlays[overlays_before:]}")
    current = await poll_value(lambda: tiles("bob"), lambda ts: ts and tile(ts, "alice") and tile(ts, "alice")["overlay"] == ""
                               and tile(ts, "alice")["videoWidth"] > 0, 15) or []
    status = await alice.evaluate("document.getElementById('status').textContent")
    report.check("alice resumed: her status says she is in the room again, bob's tile for her clears, video playing",
                 tile(current, "alice") is not None and tile(current, "alice")["overlay"] == "" and status.startswith("In "),
                 f"{tile(current, 'alice')}; alice's status: {status}")

    # alice shares her screen: bob's page shows it large.
    await alice.evaluate("(document.getElementById('share').click(), true)")
    shared_screen = await poll_value(
        lambda: bob.evaluate("[...document.querySelectorAll('#presentation video')].map((v) => v.videoWidth)"),
        lambda widths: bool(widths) and widths[0] > 0, 20)
    status = await alice.evaluate("document.getElementById('status').textContent")
    report.check("alice shares her screen (getDisplayMedia): bob's page shows it in the presentation area",
                 bool(shared_screen) and shared_screen[0] > 0, f"presentation widths {shared_screen}; alice's status: {status}")

    shots = {"alice": base64.b64decode((await alice.call("Page.captureScreenshot", format="png"))["data"]),
             "bob": await bob.screenshot()}
    # CI's artefacts: artifacts/ in the checkout (VROOM_ARTIFACTS elsewhere).
    artifacts = os.environ.get("VROOM_ARTIFACTS") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "artifacts")
    os.makedirs(artifacts, exist_ok=True)
    for identity, data in shots.items():
        path = os.path.abspath(os.path.join(artifacts, f"meet-{identity}-{browsers[identity].lower()}.png"))
        with open(path, "wb") as f:
            f.write(data)
        print(f"    screenshot of {identity}'s page ({browsers[identity]}): {path}")
    for identity in pages:
        warnings = await pages[identity].evaluate("window.meet.warnings")
        report.check(f"the SDK logged no warning on {identity}'s page ({browsers[identity]})", warnings == [],
                     f"{warnings}")


SCENARIOS = {
    "self": ("the tooling alone: aiortc to aiortc through vroom-impair (no server)", scenario_self),
    "shape": ("the htb bottleneck (scripts/shape.sh): 500 kbit/s, then 1000 kbit/s, within 20% (no server)",
              scenario_shape),
    "a2": ("two aiortc participants exchange audio and video", lambda r, c: scenario_a(r, c, 2)),
    "a3": ("three aiortc participants exchange audio and video", lambda r, c: scenario_a(r, c, 3)),
    "b": ("disable/enable stops and resumes forwarding; unpublish leaves the next offer", scenario_b),
    "c": ("5% loss and 50 +/- 10 ms jitter through vroom-impair", scenario_c),
    "d": ("Chromium (demo page) and aiortc exchange media both ways", scenario_d),
    "icetcp": ("UDP to the media ports dropped (nftables): two Chromium pages publish and decode each other "
               "over ICE-TCP", scenario_icetcp),
    "icetcp-loss": (f"the SDK over UDP, then over ICE-TCP, through one link losing {LOSS_PERCENT}% each way "
                    "(nftables): media flows on both; latency and loss side by side", scenario_icetcp_loss),
    "nq-loss": ("10% loss on one of three participants: high-packet-loss for it only", scenario_quality_loss),
    "nq-rtt": ("500 ms added delay on one of two participants: high-rtt for it only", scenario_quality_rtt),
    "speaker": ("two speakers of different loudness: the dominantSpeaker sequence", scenario_speaker),
    "sim": ("Chromium simulcast: each subscriber decodes the layer its render dimensions ask for", scenario_sim),
    "sim-switchoff": ("manual switch-off: switchOffTrack stops frames, switchOnTrack brings them back",
                      scenario_sim_switchoff),
    "sim-layers": ("publisherLayers: the top layer paused when nobody renders it large, back when one does",
                   scenario_sim_layers),
    "sim-plain": ("a non-simulcast Chromium publisher still decodes at its size, render dimensions or not",
                  scenario_sim_plain),
    "failover": ("kill -9 of the node hosting two rooms: every aiortc participant resumes at the other node "
                 "with its SIDs, each subscriber decodes again within 10 s", scenario_failover),
    "ipv6": ("a server on ::1 alone with two aiortc clients and Chromium: join, media, every path IPv6", scenario_ipv6),
    "wss": ("HTTPS and WSS with a self-signed certificate Chromium trusts by its key: two pages join over wss:// "
            "and decode each other", scenario_wss),
    "drain": (f"SIGTERM to the node hosting a room: at --drain-timeout ({DRAIN_TIMEOUT} s) both aiortc "
              "participants get `reconnect`, resume at the other node with their SIDs, media flows, the node "
              "exits 0", scenario_drain),
    "turn": ("relay only through coturn (TURN REST API credentials from joined): Chromium and aiortc exchange "
             "media, every selected path a relay", scenario_turn),
    "sdk-js": ("the JavaScript SDK in two Chromium pages: connect, see and decode each other, camera "
               "disable/enable, a killed WebSocket resumes, garbage frames warn, disconnect", scenario_sdk_js),
    "sdk-unit": ("the JavaScript SDK's state machine against a scripted signaling server (no vroom-server): "
                 "event order, error codes, resume, redirect", scenario_sdk_unit),
    "meet": ("the meeting page (/, on the SDK) in Chromium and Firefox with a Swift SDK client (vroom-join): "
             "named tiles, video both ways, mic and camera state shown on the other side, reconnection, screen share",
             scenario_meet),
    "bwe-3": ("downlink estimate: Chromium subscribers on 250 kbit/s, 800 kbit/s and unlimited links each get "
              "the layer their link carries", scenario_bwe_3),
    "bwe-cut": ("downlink estimate: a link cut to 250 kbit/s mid-call, then restored: down within 3 s, "
                "up within 15 s", scenario_bwe_cut),
    "bwe-grid": ("grid mode on a 600 kbit/s link: lowest priority switched off first (network-congestion), "
                 "back at 5 Mbit/s", scenario_bwe_grid),
}

# The simulcast scenarios (issue 12) run by name (or as `simulcast`), not by
# default: scripts/test.sh runs the default set, and they join it once the
# server does simulcast.
SIMULCAST_SCENARIOS = ["sim", "sim-switchoff", "sim-layers", "sim-plain"]
# The downlink estimation scenarios (issue 13): by name or as `bwe`, not in
# the default set (scripts/test.sh runs them as a stage of their own).
BWE_SCENARIOS = ["bwe-3", "bwe-cut", "bwe-grid"]
DEFAULT_SCENARIOS = [name for name in SCENARIOS if name not in BWE_SCENARIOS]
# The tooling checks, run without a vroom-server.
SERVERLESS_SCENARIOS = {"self", "shape", "sdk-unit"}
# Those that start a cluster of servers of their own (and its PostgreSQL).
CLUSTER_SCENARIOS = {"failover", "drain"}
# Those that start their one vroom-server themselves (with options of their own).
OWN_SERVER_SCENARIOS = {"turn", "ipv6", "wss"}


class Context:
    def __init__(self, args, log_dir):
        self.server_binary = args.server
        self.impair = args.impair
        self.chromium = args.chromium
        self.firefox = args.firefox
        self.verbose = args.verbose
        self.log_dir = log_dir
        self.server = None
        self.cleanup = []
        self.processes = []  # started by the scenario itself: stopped after the cleanup, last first

    def log(self, line):
        if self.verbose or " FAIL " in line:
            print(line, flush=True)


async def run_scenario(name, args, log_dir):
    title, body = SCENARIOS[name]
    print(f"\n== {name}: {title}", flush=True)
    report = Report(name)
    context = Context(args, log_dir)
    # The bwe scenarios wait up to 60 s for Chromium's uplink to carry f first.
    timeout = 300 if name in BWE_SCENARIOS else SCENARIO_TIMEOUT
    server_log = os.path.join(log_dir, f"vroom-server-{name}.log")
    try:
        if name not in SERVERLESS_SCENARIOS | CLUSTER_SCENARIOS | OWN_SERVER_SCENARIOS:
            context.server = VroomServer(context.server_binary, log_path=server_log).start()
            print(f"    vroom-server on {context.server.url}, UDP {context.server.rtc_ports} (log {server_log})")
        await asyncio.wait_for(body(report, context), timeout)
    except ScenarioStopped:
        pass
    except asyncio.TimeoutError:
        report.stopped_at = f"timeout after {timeout} s"
        print(f"    STOPPED at {report.stopped_at}")
    except Exception as error:
        report.stopped_at = f"error: {error!r}"
        print(f"    STOPPED at {report.stopped_at}")
        traceback.print_exc()
    finally:
        for close in reversed(context.cleanup):
            try:
                await asyncio.wait_for(close(), 10)
            except Exception:
                pass
        if context.server:
            context.server.stop()
        for process in reversed(context.processes):
            process.stop()
    print(f"== {name}: {'PASSED' if report.passed else 'FAILED'}", flush=True)
    return report


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*",
                        help=f"any of {', '.join(SCENARIOS)}, 'a' (a2 a3), 'simulcast' "
                             f"({' '.join(SIMULCAST_SCENARIOS)}) or 'bwe' ({' '.join(BWE_SCENARIOS)}) "
                             f"(default: {' '.join(DEFAULT_SCENARIOS)})")
    parser.add_argument("--server", help="the vroom-server binary (default .build/debug/vroom-server)")
    parser.add_argument("--impair", help="the vroom-impair binary (default .build/debug/vroom-impair)")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    parser.add_argument("--firefox", default=os.environ.get("FIREFOX", "firefox-esr"))
    parser.add_argument("--log-dir", help="where server and browser logs go (default: a temp folder)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every participant step")
    parser.add_argument("--signaling-only", action="store_true",
                        help="pass a scenario that stops at a media step when everything before it passed "
                             "(for CI until the media plane lands)")
    args = parser.parse_args()
    names = []
    for name in args.scenarios or DEFAULT_SCENARIOS:
        names += ["a2", "a3"] if name == "a" else SIMULCAST_SCENARIOS if name == "simulcast" \
            else BWE_SCENARIOS if name == "bwe" else [name]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(unknown)}")
    args.server = find_binary("vroom-server", args.server)
    if {"c", "self", "nq-loss", "nq-rtt"} & set(names):
        args.impair = find_binary("vroom-impair", args.impair)
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="vroom-interop-")
    os.makedirs(log_dir, exist_ok=True)

    reports = [await run_scenario(name, args, log_dir) for name in names]
    print("\n== summary" + (" (--signaling-only: stops at media steps pass)" if args.signaling_only else ""))
    verdicts = [r.signaling_passed if args.signaling_only and r.name not in SERVERLESS_SCENARIOS else r.passed
                for r in reports]
    for report, verdict in zip(reports, verdicts):
        where = f" (stopped at {report.stopped_at})" if report.stopped_at else ""
        failed = [label for label, ok, _ in report.checks if not ok]
        detail = f" failed: {'; '.join(failed)}" if failed and not where else ""
        print(f"   {'PASS' if verdict else 'FAIL'} {report.name}{where}{detail}")
    passed = sum(verdicts)
    print(f"interop: {passed} passed, {len(reports) - passed} failed")
    return 0 if passed == len(reports) else 1


def kill_leftovers():
    """SIGKILLs every process still below this one: a Chromium (or server)
    a failed scenario did not close would otherwise outlive the test,
    reparented to init (seen: a dozen browsers left over from bwe runs)."""
    from chromium import descendants  # imported here, as the scenarios import chromium
    for pid in descendants(os.getpid()):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


if __name__ == "__main__":
    try:
        status = asyncio.run(main())
    finally:
        kill_leftovers()
    sys.exit(status)
