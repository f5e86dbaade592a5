// vroom-impair: the seeded UDP impairment relay (filled by the media-plane issue).
@main
enum VroomImpair {
    static func main() {}
}
