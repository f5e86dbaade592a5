import Codecs
import Testing
