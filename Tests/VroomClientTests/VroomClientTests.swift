import Testing
import VroomClient
