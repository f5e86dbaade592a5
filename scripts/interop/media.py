"""Media sources and sinks for the interop tests.

Sources: a sine tone of a frequency per publisher (Opus survives it well),
and 320x240 video whose frames carry their frame number as big black and
white blocks that VP8 keeps even at a low bitrate. Sinks record what a
receiver decoded: frame sizes and numbers, and the dominant audio frequency.
`DECODE_FAILURES` collects aiortc's "failed to decode" warnings, by the
decoder thread that logged them (each receiver has its own).
"""

import asyncio
import fractions
import logging
import threading
import time

import av
import numpy as np
from aiortc.mediastreams import MediaStreamError, MediaStreamTrack, VideoStreamTrack

AUDIO_RATE = 48000
AUDIO_PTIME = 0.020
AUDIO_SAMPLES = int(AUDIO_RATE * AUDIO_PTIME)

# The frame number is drawn as a grid of COLS x ROWS blocks: 16 bits of the
# number then the same 16 bits inverted, so a frame whose blocks VP8 smeared
# beyond recognition is seen as unreadable, never as a wrong number.
COLS, ROWS = 8, 4
BITS = 16
BLACK, WHITE = 16, 235


class ToneTrack(MediaStreamTrack):
    """Mono 48 kHz sine of `frequency` Hz in 20 ms frames, paced in real time.
    `amplitude` (0...32767, changeable while it plays) sets the loudness that
    aiortc writes into the ssrc-audio-level extension: 10000 is about
    -13 dBov, 1000 about -33 dBov, 0 silence (-127)."""

    kind = "audio"

    def __init__(self, frequency, amplitude=10000):
        super().__init__()
        self.frequency = frequency
        self.amplitude = amplitude
        self._start = None
        self._samples = 0

    async def recv(self):
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        else:
            self._samples += AUDIO_SAMPLES
            wait = self._start + self._samples / AUDIO_RATE - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        t = (np.arange(AUDIO_SAMPLES) + self._samples) / AUDIO_RATE
        samples = (np.sin(2 * np.pi * self.frequency * t) * self.amplitude).astype(np.int16)
        frame = av.AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = AUDIO_RATE
        frame.pts = self._samples
        frame.time_base = fractions.Fraction(1, AUDIO_RATE)
        return frame


def number_image(number, width=320, height=240):
    """The luma plane of frame `number` (mod 2**16)."""
    number &= (1 << BITS) - 1
    bits = [(number >> i) & 1 for i in range(BITS)]
    bits += [1 - b for b in bits]
    luma = np.full((height, width), BLACK, dtype=np.uint8)
    cell_w, cell_h = width // COLS, height // ROWS
    for index, bit in enumerate(bits):
        if bit:
            row, col = divmod(index, COLS)
            luma[row * cell_h:(row + 1) * cell_h, col * cell_w:(col + 1) * cell_w] = WHITE
    return luma


def read_number(luma):
    """The frame number drawn by `number_image`, or None if unreadable."""
    height, width = luma.shape
    cell_w, cell_h = width // COLS, height // ROWS
    bits = []
    for index in range(COLS * ROWS):
        row, col = divmod(index, COLS)
        # The middle half of each block: its edges blur first.
        block = luma[row * cell_h + cell_h // 4:(row + 1) * cell_h - cell_h // 4,
                     col * cell_w + cell_w // 4:(col + 1) * cell_w - cell_w // 4]
        bits.append(1 if block.mean() > (BLACK + WHITE) / 2 else 0)
    value, check = bits[:BITS], bits[BITS:]
    if any(v == c for v, c in zip(value, check)):
        return None
    return sum(bit << i for i, bit in enumerate(value))


class NumberedVideoTrack(VideoStreamTrack):
    """30 fps video of a fixed size whose frame n shows the number n."""

    kind = "video"

    def __init__(self, width=320, height=240, noise=False):
        super().__init__()
        self.width, self.height = width, height
        # Noise in the black cells makes the encoder spend its whole target
        # bitrate (the plain blocks cost a few kbit/s): real load for tests
        # of the downlink allocation. The numbers stay readable.
        self.noise = np.random.default_rng(1) if noise else None
        self.sent = 0  # frames handed to the encoder (numbers 0 ..< sent)
        self.sent_times = []  # monotonic time of each frame number

    @classmethod
    def continuing(cls, previous):
        """A new track of `previous`'s size whose numbers go on from its last
        one (for a new PeerConnection), paced from now."""
        track = cls(previous.width, previous.height, noise=previous.noise is not None)
        track.sent = previous.sent
        track.sent_times = previous.sent_times
        return track

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        number = self.sent
        luma = number_image(number, self.width, self.height)
        if self.noise is not None:
            luma = np.maximum(luma, self.noise.integers(0, 96, luma.shape, dtype=np.uint8))
        chroma = np.full((self.height // 2, self.width), 128, dtype=np.uint8)
        frame = av.VideoFrame.from_ndarray(np.vstack([luma, chroma]), format="yuv420p")
        frame.pts = pts
        frame.time_base = time_base
        self.sent += 1
        self.sent_times.append(time.monotonic())
        return frame


def dominant_frequency(samples, rate=AUDIO_RATE):
    """The strongest frequency in `samples` (mono float array), in Hz."""
    if len(samples) < rate // 10:
        return None
    window = np.hanning(len(samples))
    spectrum = np.abs(np.fft.rfft(samples * window))
    spectrum[:5] = 0  # DC and rumble
    return float(np.argmax(spectrum) * rate / len(samples))


class DecodeFailures(logging.Handler):
    """aiortc's decoder threads log "RTCRtpReceiver(video) failed to decode
    vp8 frame: ..." (a warning of aiortc.rtcrtpreceiver) for each frame its
    decoder refuses: (monotonic time, thread ident, message) of each."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.failures = []
        self._lock = threading.Lock()

    def emit(self, record):
        message = record.getMessage()
        if "failed to decode" in message:
            with self._lock:
                self.failures.append((time.monotonic(), record.thread, message))

    def of_thread(self, ident):
        with self._lock:
            return [f for f in self.failures if f[1] == ident]


DECODE_FAILURES = DecodeFailures()
logging.getLogger("aiortc.rtcrtpreceiver").addHandler(DECODE_FAILURES)


class TrackSink:
    """Everything decoded from one remote track. With `read_numbers` false
    (video that carries no frame numbers, e.g. Chromium's camera) frames are
    not converted to read them, which keeps large frames cheap."""

    def __init__(self, track, mid, read_numbers=True):
        self.track = track
        self.kind = track.kind
        self.mid = mid
        self.read_numbers = read_numbers
        self.transceiver = None
        self.decoder_thread = None  # ident of the receiver's decoder thread, once a frame came
        self.frames = []  # video: (monotonic time, width, height, number or None)
        self.audio_frames = []  # audio: monotonic time of each decoded frame
        self._audio = []  # recent mono samples (float), about 2 s
        self._audio_len = 0
        self.error = None
        self.task = asyncio.ensure_future(self._run())

    async def _run(self):
        try:
            while True:
                frame = await self.track.recv()
                now = time.monotonic()
                if self.decoder_thread is None:
                    self.decoder_thread = self._decoder_thread()
                if self.kind == "video":
                    number = None
                    if self.read_numbers:
                        yuv = frame.to_ndarray(format="yuv420p")
                        number = read_number(yuv[:frame.height])
                    self.frames.append((now, frame.width, frame.height, number))
                else:
                    self.audio_frames.append(now)
                    data = frame.to_ndarray()
                    channels = len(frame.layout.channels)
                    mono = data.reshape(-1)[::channels].astype(np.float64) if frame.format.is_packed \
                        else data[0].astype(np.float64)
                    self._audio.append(mono)
                    self._audio_len += len(mono)
                    while self._audio_len - len(self._audio[0]) > 2 * AUDIO_RATE:
                        self._audio_len -= len(self._audio.pop(0))
        except MediaStreamError:
            pass
        except Exception as error:  # keep the test's report readable
            self.error = repr(error)

    def _decoder_thread(self):
        receiver = getattr(self.transceiver, "receiver", None)
        thread = getattr(receiver, "_RTCRtpReceiver__decoder_thread", None)  # aiortc 1.16's private name
        return thread.ident if thread is not None else None

    def decode_failures(self):
        """aiortc's decode failures on this track's receiver (see
        DECODE_FAILURES); every receiver's when its decoder thread is unknown."""
        if self.decoder_thread is None:
            return list(DECODE_FAILURES.failures)
        return DECODE_FAILURES.of_thread(self.decoder_thread)

    def numbers(self, since=0.0):
        return [n for t, _, _, n in self.frames if n is not None and t >= since]

    def frames_since(self, since):
        return [f for f in self.frames if f[0] >= since]

    def audio_frequency(self):
        if not self._audio:
            return None
        samples = np.concatenate(self._audio)[-AUDIO_RATE:]
        return dominant_frequency(samples)

    def stop(self):
        self.task.cancel()
