// vroom-loadtest: filled by the client SDK issue (issue 5).
@main
enum VroomLoadTest {
    static func main() {}
}
